import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { chooseInitUser, type UserSources } from "../../cli/init-user.js";
import { UserError } from "../../runtime/core/errors.js";

/*
 * GIVEN a host with root (and a second uid-0 account), alice (1000) and bob (1001), WHEN init
 * has to name the config's user, THEN it takes the first usable source and never root.
 */
const dir = mkdtempSync(join(tmpdir(), "forage-init-user-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const passwdFile = join(dir, "passwd");
writeFileSync(
  passwdFile,
  "root:x:0:0:root:/root:/bin/bash\ntoor:x:0:0::/root:/bin/sh\nalice:x:1000:1000::/home/alice:/bin/bash\nbob:x:1001:1001::/home/bob:/bin/bash\n",
);
const loginUid = (value: string): string => {
  const file = join(dir, `loginuid-${value}`);
  writeFileSync(file, value);
  return file;
};
const unsetLogin = loginUid("4294967295");
const asRoot = { uid: 0, username: "root" };

/** Root with no sudo, no login session and no terminal, plus what the test adds. */
const sources = (more: Partial<UserSources>): UserSources => ({
  option: undefined,
  env: {},
  self: asRoot,
  loginUidFile: unsetLogin,
  passwdFile,
  ...more,
});

/** A terminal that answers in turn, recording each question. */
const scripted = (...answers: (string | undefined)[]) => {
  const questions: string[] = [];
  return { questions, ask: (question: string) => (questions.push(question), Promise.resolve(answers.shift())) };
};

async function refusal(promise: Promise<unknown>): Promise<UserError> {
  const error = await promise.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(UserError);
  expect((error as UserError).kind).toBe("usage");
  return error as UserError;
}

describe("init's choice of user", () => {
  it("takes --user first, even over $SUDO_USER (a user for another host need not exist here)", async () => {
    expect(await chooseInitUser(sources({ option: "carol", env: { SUDO_USER: "alice" } }))).toEqual({
      name: "carol",
      from: "--user",
    });
  });

  it("refuses --user root, and any name whose uid is 0, with exit 64", async () => {
    expect((await refusal(chooseInitUser(sources({ option: "root" })))).message).toBe(
      '--user: "root" is root: agents never run as root; give the host user who owns your workspaces',
    );
    expect((await refusal(chooseInitUser(sources({ option: "toor" })))).message).toMatch(/^--user: "toor" is root/);
  });

  it("refuses a --user that is not a Unix user name", async () => {
    expect((await refusal(chooseInitUser(sources({ option: 'bad"name' })))).message).toBe(
      '--user: "bad"name" is not a valid Unix user name',
    );
  });

  it("takes $SUDO_USER when run with sudo", async () => {
    expect(await chooseInitUser(sources({ env: { SUDO_USER: "alice" } }))).toEqual({
      name: "alice",
      from: "$SUDO_USER",
    });
  });

  it("skips a $SUDO_USER of root (sudo run by root) and goes on to the login session", async () => {
    expect(await chooseInitUser(sources({ env: { SUDO_USER: "root" }, loginUidFile: loginUid("1001") }))).toEqual({
      name: "bob",
      from: "your login session",
    });
  });

  it("takes this process's own user when it is not root", async () => {
    expect(
      await chooseInitUser(sources({ self: { uid: 1000, username: "alice" }, loginUidFile: loginUid("1001") })),
    ).toEqual({ name: "alice", from: "your user" });
  });

  it("takes the login session's user (kept across su and sudo) when run as root", async () => {
    expect(await chooseInitUser(sources({ loginUidFile: loginUid("1000") }))).toEqual({
      name: "alice",
      from: "your login session",
    });
  });

  it("ignores a login session of root, an unset one, one with no account, and a kernel without the file", async () => {
    for (const file of [loginUid("0"), unsetLogin, loginUid("4242"), join(dir, "missing")]) {
      await refusal(chooseInitUser(sources({ loginUidFile: file })));
    }
  });

  it("with no source and no terminal, refuses with exit 64 and says to pass --user", async () => {
    expect((await refusal(chooseInitUser(sources({})))).message).toBe(
      "init: cannot tell which host user owns your workspaces (no --user, no $SUDO_USER, no login session, no terminal to ask on): pass --user NAME, the host user who owns your workspaces (agents get its UID/GID; never root)",
    );
  });

  it("on a terminal, asks, and takes an existing non-root user", async () => {
    const terminal = scripted("  bob ");
    expect(await chooseInitUser(sources({ ask: terminal.ask }))).toEqual({ name: "bob", from: "your answer" });
    expect(terminal.questions).toEqual(["Host user who owns your workspaces (agents get its UID/GID; never root): "]);
  });

  it("asks again after an empty answer or root, saying what was wrong", async () => {
    const terminal = scripted("", "root", "alice");
    expect(await chooseInitUser(sources({ ask: terminal.ask }))).toEqual({ name: "alice", from: "your answer" });
    expect(terminal.questions.slice(1).map((q) => q.split("\n")[0])).toEqual([
      "give a user name.",
      '"root" is root: agents never run as root; give the host user who owns your workspaces.',
    ]);
  });

  it("after three bad answers (unknown user, bad name, uid 0) refuses with exit 64", async () => {
    const terminal = scripted("mallory", "Bad Name", "toor", "alice");
    expect((await refusal(chooseInitUser(sources({ ask: terminal.ask })))).message).toMatch(
      /^init: no valid user after 3 answers: pass --user NAME/,
    );
    expect(terminal.questions.slice(1).map((q) => q.split("\n")[0])).toEqual([
      `there is no user "mallory" on this host (see ${passwdFile}).`,
      '"Bad Name" is not a valid Unix user name.',
    ]);
  });

  it("refuses when the terminal's input ends (Ctrl-D)", async () => {
    expect((await refusal(chooseInitUser(sources({ ask: scripted(undefined).ask })))).message).toMatch(
      /^init: no user given: pass --user NAME/,
    );
  });
});

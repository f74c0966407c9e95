import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runtimePaths } from "../../../../runtime/core/paths.js";
import {
  encodeVerdict,
  maxHookMessage,
  serveControlChannel,
} from "../../../../runtime/gates/push-gate/control-channel.js";
import { outboxLayout } from "../../../../runtime/gates/push-gate/outbox.js";
import { PushSession } from "../../../../runtime/gates/push-gate/push-session.js";
import { relayPath } from "../../../../runtime/gates/push-gate/start-push-gate.js";
import { ApprovalDesk } from "./approval-desk.js";

const zeros = "0".repeat(40);
const id = "a".repeat(40);

/*
 * The channel between the outbox's hooks (the real relay binary, linked as pre-receive and
 * update, as git runs them) and the gate: messages and answers each end with a NUL, several in
 * turn on one channel; whatever does not parse, or comes out of turn, is refused before anyone is
 * asked or any git runs.
 */
describe("the hooks' control channel to the gate", () => {
  const dir = mkdtempSync(join(tmpdir(), "forage-hook-channel-"));
  for (const hook of ["pre-receive", "update"]) symlinkSync(relayPath(), join(dir, hook));
  const layout = outboxLayout(runtimePaths(join(dir, "state"), { FORAGE_STATE_DIR: join(dir, "state") }), "hooked");
  const desk = new ApprovalDesk();
  const user = { name: "nobody", uid: 65534, gid: 65534, home: "/nonexistent" };
  const session = (): PushSession =>
    new PushSession(layout, {
      sandbox: "hooked",
      user,
      remote: "origin",
      url: "/nonexistent.git",
      protectedBranches: null,
      ask: desk.ask,
    });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs one hook with the gate's channel as its fd 3, as git-receive-pack would. */
  const runHook = (
    hook: string,
    args: string[],
    served: PushSession,
    input = "",
    env: Record<string, string> = {},
  ): Promise<{ code: number | null; stderr: string }> =>
    new Promise((resolve) => {
      const child = spawn(join(dir, hook), args, { stdio: ["pipe", "ignore", "pipe", "pipe"], env });
      serveControlChannel(child.stdio[3] as Socket, (message) => served.answer(message));
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      // A hook that refuses early stops reading: the rest of its input meets a closed pipe.
      child.stdin?.on("error", () => undefined);
      child.stdin?.end(input);
      child.once("close", (code) => resolve({ code, stderr }));
    });

  it("refuses an update hook's ref that no pre-receive let through", async () => {
    const said = await runHook("update", ["refs/heads/a", zeros, id], session());
    expect(said).toEqual({
      code: 1,
      stderr: "error: forage push gate: refs/heads/a: an update the gate did not check\n",
    });
    expect(desk.asks).toEqual([]);
  });

  it("refuses an update hook's ref name with a newline (the message would have two lines)", async () => {
    const said = await runHook("update", ["refs/heads/a\nrefs/heads/b", zeros, id], session());
    expect(said.code).toBe(1);
    expect(said.stderr).toContain("a malformed message from the update hook");
  });

  it("has the update hook itself refuse a call without REF OLD NEW", async () => {
    expect(await runHook("update", ["refs/heads/a"], session())).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("takes REF OLD NEW"),
    });
  });

  it("refuses a pre-receive whose quarantine is not git's own directory in the outbox", async () => {
    const said = await runHook("pre-receive", [], session(), `${zeros} ${id} refs/heads/a\n`, {
      GIT_QUARANTINE_PATH: "/etc",
    });
    expect(said).toEqual({ code: 1, stderr: "error: forage push gate: unexpected quarantine directory\n" });
  });

  it("refuses a second pre-receive in one push", async () => {
    const served = session();
    await runHook("pre-receive", [], served, `${zeros} ${id} refs/heads/a\n`, { GIT_QUARANTINE_PATH: "/etc" });
    expect((await runHook("pre-receive", [], served, `${zeros} ${id} refs/heads/a\n`)).stderr).toContain(
      "a second pre-receive in one push",
    );
  });

  it("has the pre-receive hook refuse input with a NUL, or larger than the gate takes", async () => {
    expect((await runHook("pre-receive", [], session(), `${zeros} ${id} refs/heads/a\0\n`)).stderr).toContain(
      "a NUL in what git handed the hook",
    );
    expect(
      (await runHook("pre-receive", [], session(), `${zeros} ${id} refs/heads/a\n`.repeat(1000))).stderr,
    ).toContain("too many ref updates in one push");
  });

  describe("framing, on a socket", () => {
    const socketPath = join(dir, "channel.sock");
    const answered: string[] = [];
    const server = createServer((socket) =>
      serveControlChannel(socket, (message) => {
        answered.push(message);
        return Promise.resolve({ accepted: message === "yes", lines: [`said ${message}`] });
      }),
    );
    afterAll(() => server.close());

    /** Writes `data`, collects what comes back until the gate ends the channel or `frames` NULs came. */
    const exchange = async (data: string, frames: number): Promise<string> => {
      if (!server.listening) await new Promise<void>((resolve) => server.listen(socketPath, resolve));
      return new Promise((resolve) => {
        const client = connect(socketPath);
        let got = "";
        client.on("data", (chunk: Buffer) => {
          got += chunk.toString("latin1");
          if (got.split("\0").length > frames) client.end();
        });
        client.once("close", () => resolve(got));
        client.write(data);
      });
    };

    it("answers each of several messages in turn, each answer ended by a NUL", async () => {
      expect(await exchange("yes\0no\0", 2)).toBe("0said yes\n\x001said no\n\0");
      expect(answered.slice(-2)).toEqual(["yes", "no"]);
    });

    it("refuses a message longer than it takes, and closes the channel", async () => {
      const before = answered.length;
      expect(await exchange("x".repeat(maxHookMessage + 1), 1)).toBe(
        "1error: forage push gate: the push names too many refs\n\0",
      );
      expect(answered.length).toBe(before);
    });

    it("shows control characters in its lines as '?': a NUL never ends an answer early", () => {
      expect(encodeVerdict({ accepted: true, lines: ["a\0b\x1b[31m"] })).toBe("0a?b?[31m\n\0");
    });
  });
});

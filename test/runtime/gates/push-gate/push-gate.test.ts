import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCommand } from "../../../../runtime/core/run-command.js";
import { relayPath, removePushGate } from "../../../../runtime/gates/push-gate/start-push-gate.js";
import { isRoot, toolsAvailable } from "../../../support/tools.js";
import { GateFixture } from "./gate-fixture.js";

const tools = toolsAvailable("git", "setpriv", "useradd", "userdel");
// Only the jj test needs it; locally it skips that one alone, with the reason.
const withJj = toolsAvailable("jj");

/*
 * GIVEN the gate on a user's repository and an agent's clone (gate-fixture.ts); WHEN the agent
 * pushes, THEN the gate refuses, asks, and pushes upstream as the user, and the agent's git says
 * what happened.
 */
describe.skipIf(!tools.run || !isRoot())("the push gate, with real git", () => {
  const f = new GateFixture("g", 0);
  const { desk } = f;
  const asAgent = (args: string[]): ReturnType<GateFixture["asAgent"]> => f.asAgent(args);
  const upstreamHas = (ref: string): string | null => f.has(ref);
  const commit = (file: string, message: string): Promise<string> => f.commit(file, message);

  it("stands in for the user's remote, with its push URL", async () => {
    expect(f.gate?.remotes()).toEqual([{ name: "origin", url: f.upstream, fromPushUrl: false }]);
  });

  it("listens on a socket only the sandbox's agent (and root) may connect to", async () => {
    const info = statSync(f.layout.socket);
    expect([info.isSocket(), info.uid, info.mode & 0o777]).toEqual([true, f.agentUid, 0o600]);
    // Any other account (here the host user's own) is refused by the socket's mode, before the gate hears a word.
    const other = await runCommand(
      "setpriv",
      [
        `--reuid=${f.uid}`,
        `--regid=${f.uid}`,
        "--clear-groups",
        "--",
        relayPath(),
        "git-receive-pack",
        "origin",
        f.layout.socket,
      ],
      {
        reject: false,
        input: "",
      },
    );
    expect([other.exitCode, other.stderr]).toEqual([2, expect.stringContaining("does not answer: Permission denied")]);
    expect(desk.asks).toEqual([]);
  });

  it("asks for a new branch with its commits and diffstat, and once approved pushes it upstream as the user", async () => {
    const to = await commit("feature.txt", "Add the feature");
    desk.policy = (ask) =>
      ask.kind === "push" && ask.subject.commits.some((line) => line.endsWith(" Add the feature"))
        ? { decision: "once" }
        : { decision: "deny" };
    const pushed = await asAgent(["push", "origin", "HEAD:refs/heads/feature"]);
    expect(pushed.output).toContain("approved and pushed to origin");
    expect(pushed.status).toBe(0);
    expect(desk.asks).toHaveLength(1);
    expect(desk.asks[0]).toMatchObject({
      sandbox: "pushy",
      kind: "push",
      subject: { remote: "origin", url: f.upstream, ref: "refs/heads/feature", from: null, to },
    });
    const subject = desk.asks[0]?.kind === "push" ? desk.asks[0].subject : undefined;
    expect(subject?.commits).toEqual([`${to.slice(0, 7)} Add the feature`]);
    expect(subject?.diffstat).toContain("feature.txt");
    expect(upstreamHas("refs/heads/feature")).toBe(to);
    // The upstream's new object was written by the user's git, not root's.
    expect(statSync(join(f.upstream, "objects", to.slice(0, 2), to.slice(2))).uid).toBe(f.uid);
  });

  it("asks for a fast-forward of an existing branch with the range from the upstream's commit", async () => {
    const from = upstreamHas("refs/heads/feature");
    const to = await commit("more.txt", "More of it");
    desk.policy = () => ({ decision: "once" });
    expect((await asAgent(["push", "origin", "HEAD:refs/heads/feature"])).status).toBe(0);
    expect(desk.asks[0]).toMatchObject({ subject: { from, to, commits: [`${to.slice(0, 7)} More of it`] } });
    expect(upstreamHas("refs/heads/feature")).toBe(to);
  });

  it("pushes nothing when the user denies, and tells the agent so", async () => {
    const before = upstreamHas("refs/heads/feature");
    await commit("denied.txt", "Denied change");
    desk.policy = () => ({ decision: "deny" });
    const pushed = await asAgent(["push", "origin", "HEAD:refs/heads/feature"]);
    expect(pushed.status).not.toBe(0);
    expect(pushed.output).toMatch(/remote: error: forage push gate: refs\/heads\/feature: denied by the user/);
    expect(upstreamHas("refs/heads/feature")).toBe(before);
  });

  it("pushes nothing when nobody answers by the deadline, and says it expired", async () => {
    const before = upstreamHas("refs/heads/feature");
    const pushed = await asAgent(["push", "origin", "HEAD:refs/heads/feature"]);
    expect(desk.asks).toHaveLength(1);
    expect(pushed.output).toContain("nobody answered within 5 s: not pushed");
    expect(upstreamHas("refs/heads/feature")).toBe(before);
  }, 20_000);

  it("refuses a force push without asking", async () => {
    const before = upstreamHas("refs/heads/feature");
    expect((await asAgent(["reset", "-q", "--hard", "HEAD~2"])).status).toBe(0);
    await commit("rewrite.txt", "Rewritten history");
    const pushed = await asAgent(["push", "--force", "origin", "HEAD:refs/heads/feature"]);
    expect(pushed.output).toContain("refused: not a fast-forward of the upstream's feature");
    expect(desk.asks).toEqual([]);
    expect(upstreamHas("refs/heads/feature")).toBe(before);
  });

  it("refuses a branch deletion without asking", async () => {
    const pushed = await asAgent(["push", "origin", ":refs/heads/feature"]);
    expect(pushed.output).toContain("refused: deleting branch feature is not allowed");
    expect(desk.asks).toEqual([]);
    expect(upstreamHas("refs/heads/feature")).not.toBeNull();
  });

  it("refuses a push to the upstream's default branch (protected unless the template says otherwise)", async () => {
    const before = upstreamHas("refs/heads/main");
    const pushed = await asAgent(["push", "origin", "HEAD:refs/heads/main"]);
    expect(pushed.output).toContain("refused: main is a protected branch");
    expect(desk.asks).toEqual([]);
    expect(upstreamHas("refs/heads/main")).toBe(before);
  });

  it("refuses hostile ref names: a tag, a part starting with '-'", async () => {
    for (const ref of ["refs/tags/v1", "refs/heads/-rf"]) {
      const pushed = await asAgent(["push", "origin", `HEAD:${ref}`]);
      expect(pushed.status).not.toBe(0);
      expect(pushed.output).toMatch(/refused: (only branches|a ref name with a part starting with '-')/);
      expect(upstreamHas(ref)).toBeNull();
    }
    expect(desk.asks).toEqual([]);
  });

  it.skipIf(!withJj.run)("takes jj's `jj git push` the same way (jj pushes through git's remote config)", async () => {
    const jj = (args: string[]): ReturnType<typeof runCommand> =>
      runCommand("setpriv", [`--reuid=${f.agentUid}`, `--regid=${f.agentUid}`, "--clear-groups", "--", "jj", ...args], {
        cwd: f.work,
        env: {
          HOME: f.agentHome,
          PATH: "/usr/local/bin:/usr/bin:/bin",
          JJ_USER: "Agent",
          JJ_EMAIL: "agent@example.test",
        },
        reject: false,
      });
    await commit("jj.txt", "Pushed by jj");
    expect((await jj(["git", "init", "--colocate", f.work])).exitCode).toBe(0);
    expect((await jj(["bookmark", "create", "from-jj", "-r", "@-"])).exitCode).toBe(0);
    desk.policy = () => ({ decision: "once" });
    const pushed = await jj(["git", "push", "-b", "from-jj"]);
    expect(pushed.stderr).toContain("approved and pushed to origin");
    expect(desk.asks[0]).toMatchObject({ subject: { ref: "refs/heads/from-jj" } });
    // Oldest first: the force-push test's unpushed commit, then jj's.
    expect(desk.asks[0]?.kind === "push" ? desk.asks[0].subject.commits.at(-1) : undefined).toMatch(/ Pushed by jj$/);
    expect(upstreamHas("refs/heads/from-jj")).not.toBeNull();
  });

  // Last: it removes the gate.
  it("removes the gate at down, the user's outbox as the user: a link the user planted in it is not followed", async () => {
    await f.gate?.close();
    f.gate = undefined;
    const { layout, paths, root, uid } = f;
    const victim = join(root, "root-only");
    mkdirSync(victim, { mode: 0o700 });
    writeFileSync(join(victim, "keep"), "root's\n");
    execFileSync("setpriv", [
      `--reuid=${uid}`,
      `--regid=${uid}`,
      "--clear-groups",
      "--",
      "ln",
      "-s",
      victim,
      join(layout.gitDir, "planted"),
    ]);
    await removePushGate(paths, "pushy", { uid, gid: uid });
    expect(existsSync(layout.dir)).toBe(false);
    expect(readFileSync(join(victim, "keep"), "utf8")).toBe("root's\n");
  });
});

import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runCommand } from "../../../runtime/core/run-command.js";
import { runtimePaths } from "../../../runtime/core/paths.js";
import { sandboxGitConfig } from "../../../runtime/push-gate/sandbox-git-config.js";
import { relayPath, removePushGate, startSandboxPushGate, type SandboxPushGate } from "../../../runtime/push-gate/start-push-gate.js";
import { outboxLayout } from "../../../runtime/push-gate/outbox.js";
import { hasTool, isRoot, toolsAvailable } from "../../support/tools.js";
import { ApprovalDesk } from "./approval-desk.js";

const tools = toolsAvailable("git", "setpriv", "useradd", "userdel");

/*
 * GIVEN a host user with a bare "upstream" repository and a clone of it (the repository a sandbox
 * works on), and an agent (another uid, as in a sandbox) with a clone of its own whose pushes the
 * sandbox's git config sends to the gate; WHEN the agent pushes, THEN the gate refuses, asks,
 * and pushes upstream as the user, and the agent's git says what happened.
 */
describe.skipIf(!tools.run || !isRoot())("the push gate, with real git", () => {
  const account = `fpush${process.pid % 100000}`;
  const agentUid = 61_000 + (process.pid % 1000);
  const root = mkdtempSync(join(tmpdir(), "forage-push-gate-"));
  const home = join(root, "home");
  const upstream = join(home, "upstream.git");
  const userRepo = join(home, "repo");
  const agentHome = join(root, "agent");
  const work = join(agentHome, "work");
  const desk = new ApprovalDesk();
  let uid = 0;
  let gate: SandboxPushGate | undefined;

  const asUser = (args: string[], cwd = home): string =>
    execFileSync("setpriv", [`--reuid=${uid}`, `--regid=${uid}`, "--init-groups", "--", "git", ...args], { cwd, env: { HOME: home, PATH: "/usr/bin:/bin" }, encoding: "utf8" });
  // Asynchronous: the gate answers from this very process.
  const asAgent = async (args: string[]): Promise<{ status: number | undefined; output: string }> => {
    const result = await runCommand("setpriv", [`--reuid=${agentUid}`, `--regid=${agentUid}`, "--clear-groups", "--", "git", "-C", work, ...args], {
      env: { HOME: agentHome, PATH: "/usr/bin:/bin" },
      reject: false,
      timeoutMs: 60_000,
    });
    return { status: result.exitCode, output: `${result.stdout}\n${result.stderr}` };
  };
  const upstreamHas = (ref: string): string | null => {
    const said = spawnSync("git", ["--git-dir", upstream, "rev-parse", "--verify", "--quiet", ref], { encoding: "utf8" });
    return said.status === 0 ? said.stdout.trim() : null;
  };
  const commit = async (file: string, message: string): Promise<string> => {
    writeFileSync(join(work, file), `${message}\n`);
    chownSync(join(work, file), agentUid, agentUid);
    expect((await asAgent(["add", file])).status).toBe(0);
    expect((await asAgent(["commit", "-q", "-m", message])).status).toBe(0);
    return (await asAgent(["rev-parse", "HEAD"])).output.trim();
  };

  beforeAll(async () => {
    execFileSync("useradd", ["--no-create-home", "--home-dir", home, "--shell", "/bin/sh", "--comment", "Forage push gate test (removed at the end)", account]);
    uid = Number(execFileSync("id", ["-u", account], { encoding: "utf8" }).trim());
    execFileSync("chmod", ["755", root]);
    mkdirSync(home, { mode: 0o700 });
    chownSync(home, uid, uid);
    asUser(["config", "--global", "user.name", "Host User"]);
    asUser(["config", "--global", "user.email", "user@example.test"]);
    asUser(["init", "-q", "--bare", "-b", "main", upstream]);
    asUser(["clone", "-q", upstream, userRepo]);
    asUser(["-C", userRepo, "commit", "-q", "--allow-empty", "-m", "first"]);
    asUser(["-C", userRepo, "push", "-q", "origin", "main"]);
    // The agent: its own uid and clone (a sandbox's workspace), and the sandbox's git config.
    mkdirSync(join(agentHome, ".config/git"), { recursive: true });
    asUser(["clone", "-q", upstream, join(home, "agent-work")]);
    execFileSync("mv", [join(home, "agent-work"), work]);
    execFileSync("chown", ["-R", `${agentUid}:${agentUid}`, agentHome]);
    paths = runtimePaths(join(root, "state"), { FORAGE_STATE_DIR: join(root, "state"), FORAGE_RUN_DIR: join(root, "run") });
    gate = await startSandboxPushGate({
      paths,
      sandbox: "pushy",
      workspace: { mode: "git-worktree", hostPath: work, managed: true, sourceRepo: userRepo, stores: [{ kind: "git", path: join(userRepo, ".git") }] },
      user: { name: account, uid, gid: uid, home },
      protectedBranches: null,
      ask: desk.ask,
      deadlineMs: 5_000,
    });
    // On the host the relay and socket are at their own paths, not the sandbox's mount points.
    const config = sandboxGitConfig(gate.remotes, { relay: relayPath(), socket: outboxLayout(paths, "pushy").socket });
    writeFileSync(join(agentHome, ".config/git/config"), `[user]\n\tname = Agent\n\temail = agent@example.test\n${config}`);
  }, 60_000);

  let paths: ReturnType<typeof runtimePaths>;

  afterAll(async () => {
    await gate?.close();
    spawnSync("userdel", [account]);
    rmSync(root, { recursive: true, force: true });
  });

  beforeEach(() => {
    desk.asks.length = 0;
    desk.policy = () => "wait";
  });

  it("stands in for the user's remote, with its push URL", async () => {
    expect(gate?.remotes).toEqual([{ name: "origin", url: upstream }]);
  });

  it("asks for a new branch with its commits and diffstat, and once approved pushes it upstream as the user", async () => {
    const to = await commit("feature.txt", "Add the feature");
    desk.policy = (ask) => (ask.kind === "push" && ask.subject.commits.some((line) => line.endsWith(" Add the feature")) ? { decision: "once" } : { decision: "deny" });
    const pushed = await asAgent(["push", "origin", "HEAD:refs/heads/feature"]);
    expect(pushed.output).toContain("approved and pushed to origin");
    expect(pushed.status).toBe(0);
    expect(desk.asks).toHaveLength(1);
    expect(desk.asks[0]).toMatchObject({ sandbox: "pushy", kind: "push", subject: { remote: "origin", url: upstream, ref: "refs/heads/feature", from: null, to } });
    const subject = desk.asks[0]?.kind === "push" ? desk.asks[0].subject : undefined;
    expect(subject?.commits).toEqual([`${to.slice(0, 7)} Add the feature`]);
    expect(subject?.diffstat).toContain("feature.txt");
    expect(upstreamHas("refs/heads/feature")).toBe(to);
    // The upstream's new object was written by the user's git, not root's.
    expect(statSync(join(upstream, "objects", to.slice(0, 2), to.slice(2))).uid).toBe(uid);
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

  it.skipIf(!hasTool("jj"))("takes jj's `jj git push` the same way (jj pushes through git's remote config)", async () => {
    const jj = (args: string[]): ReturnType<typeof runCommand> =>
      runCommand("setpriv", [`--reuid=${agentUid}`, `--regid=${agentUid}`, "--clear-groups", "--", "jj", ...args], {
        cwd: work,
        env: { HOME: agentHome, PATH: "/usr/local/bin:/usr/bin:/bin", JJ_USER: "Agent", JJ_EMAIL: "agent@example.test" },
        reject: false,
      });
    await commit("jj.txt", "Pushed by jj");
    expect((await jj(["git", "init", "--colocate", work])).exitCode).toBe(0);
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
    await gate?.close();
    gate = undefined;
    const layout = outboxLayout(paths, "pushy");
    const victim = join(root, "root-only");
    mkdirSync(victim, { mode: 0o700 });
    writeFileSync(join(victim, "keep"), "root's\n");
    execFileSync("setpriv", [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "--", "ln", "-s", victim, join(layout.gitDir, "planted")]);
    await removePushGate(paths, "pushy", { uid, gid: uid });
    expect(existsSync(layout.dir)).toBe(false);
    expect(readFileSync(join(victim, "keep"), "utf8")).toBe("root's\n");
  });
});

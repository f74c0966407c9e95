import { chownSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sandboxGitConfig } from "../../../../runtime/gates/push-gate/sandbox-git-config.js";
import { pushGateBinds } from "../../../../runtime/gates/push-gate/sandbox-push-gate.js";
import { relayPath } from "../../../../runtime/gates/push-gate/start-push-gate.js";
import { isRoot, toolsAvailable } from "../../../support/tools.js";
import { agentIdentity, GateFixture } from "./gate-fixture.js";

const tools = toolsAvailable("git", "setpriv", "useradd", "userdel");

/*
 * GIVEN the gate (gate-fixture.ts), whose remotes config the agent's home git config includes;
 * WHEN the user adds, changes or removes a remote while the gate runs, THEN the gate follows the
 * user's config (on a refresh, or when a push arrives), with no restart, and pushes only where the
 * user's config says, whatever URL the agent's own clone names.
 */
describe.skipIf(!tools.run || !isRoot())("the push gate's remotes, kept current while it runs", () => {
  const f = new GateFixture("r", 2);
  const included = (): string => readFileSync(f.layout.remotesConfig, "utf8");
  /** The agent's clone mirrors the user's remote (in a sandbox they share the repository's config). */
  let second = "";
  const agentRemote = async (...args: string[]): Promise<void> =>
    expect((await f.asAgent(["remote", ...args])).status).toBe(0);

  it("writes the remotes config the sandbox's git includes: root's, 0640 for the agent's group, naming the user's remote", () => {
    const info = statSync(f.layout.remotesConfig);
    // Not the world's to read: a push URL may carry a token.
    expect([info.uid, info.gid, info.mode & 0o777]).toEqual([0, f.agentUid, 0o640]);
    expect(included()).toContain(`pushInsteadOf = "${f.upstream}"`);
  });

  it("is written when the sandbox's binds are made, before its gate runs: no early push goes around the gate", async () => {
    const paths = { ...f.paths, pushGateDir: join(f.root, "provisioned") };
    const binds = await pushGateBinds(paths, {
      name: "pushy",
      pushGate: { protectedBranches: null },
      uid: f.uid,
      gid: f.uid,
      workspace: { mode: "direct", hostPath: f.userRepo, managed: false },
    });
    expect(binds.map((bind) => bind.target)).toEqual(["/run/forage-push", "/run/forage-git-relay"]);
    const early = readFileSync(join(paths.pushGateDir, "pushy", "socket", "remotes.gitconfig"), "utf8");
    expect(early).toContain(`pushInsteadOf = "${f.upstream}"`);
    expect(early).toContain("ext::/run/forage-git-relay %S origin /run/forage-push/gate.sock");
  });

  it("still takes a sandbox provisioned before, whose home git config names its remotes itself", async () => {
    const oldStyle = join(f.agentHome, "old-style.gitconfig");
    writeFileSync(
      oldStyle,
      `${agentIdentity}${sandboxGitConfig([{ name: "origin", url: f.upstream, fromPushUrl: false }], { relay: relayPath(), socket: f.layout.socket })}`,
    );
    chownSync(oldStyle, f.agentUid, f.agentUid);
    const to = await f.commit("old.txt", "From an old sandbox");
    f.desk.policy = () => ({ decision: "once" });
    // GIT_CONFIG_GLOBAL stands in for the home config: the include is not read at all.
    const pushed = await f.asAgent(["push", "origin", "HEAD:refs/heads/old-style"], { GIT_CONFIG_GLOBAL: oldStyle });
    expect(pushed.output).toContain("approved and pushed to origin");
    expect(f.has("refs/heads/old-style")).toBe(to);
  });

  it("leaves the config as it is when the repository's config did not change (no rewrite)", async () => {
    const before = statSync(f.layout.remotesConfig).ino;
    await f.gate?.refresh();
    expect(statSync(f.layout.remotesConfig).ino).toBe(before);
  });

  it("gates a remote the user adds while the gate runs, after a refresh, without a restart", async () => {
    second = f.bareRepository("second.git");
    f.asUser(["-C", f.userRepo, "remote", "add", "second", second]);
    await agentRemote("add", "second", second);
    await f.gate?.refresh();
    expect(included()).toContain(`pushInsteadOf = "${second}"`);
    const to = await f.commit("second.txt", "For the second remote");
    f.desk.policy = () => ({ decision: "once" });
    const pushed = await f.asAgent(["push", "second", "HEAD:refs/heads/later"]);
    expect(pushed.output).toContain("approved and pushed to second");
    expect(f.desk.asks[0]).toMatchObject({ subject: { remote: "second", url: second, ref: "refs/heads/later", to } });
    expect(f.has("refs/heads/later", second)).toBe(to);
  });

  it("reads the remotes again when a push arrives, and pushes to the user's URL, not one the agent names", async () => {
    const third = f.bareRepository("third.git");
    f.asUser(["-C", f.userRepo, "remote", "add", "third", third]);
    f.desk.policy = () => ({ decision: "once" });
    // No refresh first; the agent's own clone has no "third" at all: only the name reaches the gate.
    const pushed = await f.asAgent(["push", f.gateUrl("third"), "HEAD:refs/heads/by-name"]);
    expect(pushed.output).toContain("approved and pushed to third");
    expect(f.has("refs/heads/by-name", third)).not.toBeNull();
  });

  it("follows a changed push URL (a pushurl, which git rewrites only with insteadOf): the push goes where the user's config says now", async () => {
    const moved = f.bareRepository("moved.git");
    f.asUser(["-C", f.userRepo, "remote", "set-url", "--push", "second", moved]);
    await agentRemote("set-url", "--push", "second", moved);
    await f.gate?.refresh();
    expect(included()).toContain(`insteadOf = "${moved}"`);
    await f.commit("moved.txt", "After the move");
    f.desk.policy = () => ({ decision: "once" });
    const pushed = await f.asAgent(["push", "second", "HEAD:refs/heads/moved"]);
    expect(pushed.status).toBe(0);
    expect(f.desk.asks[0]).toMatchObject({ subject: { remote: "second", url: moved } });
    expect(f.has("refs/heads/moved", moved)).not.toBeNull();
    expect(f.has("refs/heads/moved", second)).toBeNull();
  });

  it("no longer takes a remote the user removed", async () => {
    f.asUser(["-C", f.userRepo, "remote", "remove", "third"]);
    const pushed = await f.asAgent(["push", f.gateUrl("third"), "HEAD:refs/heads/gone"]);
    expect(pushed.output).toContain('no such remote here: "third"');
    expect(f.desk.asks).toEqual([]);
    expect(included()).not.toContain("third");
  });

  it("leaves out a remote added with a URL that runs a command (ext::): it is not gated", async () => {
    f.asUser(["-C", f.userRepo, "remote", "add", "runs", "ext::sh -c true"]);
    await f.gate?.refresh();
    expect(included()).not.toContain("ext::sh");
    const pushed = await f.asAgent(["push", f.gateUrl("runs"), "HEAD:refs/heads/runs"]);
    expect(pushed.output).toContain('no such remote here: "runs"');
    expect(f.desk.asks).toEqual([]);
  });
});

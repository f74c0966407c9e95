import { execFileSync } from "node:child_process";
import { appendFileSync, chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost } from "./harness.js";

/*
 * The daemon runs the host-side gates of running sandboxes (runtime/daemon/sandbox-services.ts):
 * GIVEN templates with sshAgent and pushGate, WHEN a sandbox of each is up (through the daemon
 * `up` starts, as the harness runs it), THEN its agent lists the test's key inside the sandbox,
 * and its pushes reach the gate, which asks the daemon's approvals queue: approved with
 * forage-ctl approve, the push lands upstream (as the host user); unanswered by the deadline (3 s
 * here), nothing is pushed; a force push and one to the default branch are refused outright; a
 * remote added on the host while the sandbox runs is gated without a reset.
 */
/** A waiting approval as `forage-ctl approvals --json` lists it (the parts these tests read). */
interface PushRequest {
  id: string;
  kind: string;
  subject: { remote: string; url: string; ref: string; commits: string[] };
}

const tools = toolsAvailable(
  "systemd-nspawn",
  "nsenter",
  "setpriv",
  "ip",
  "flock",
  "tmux",
  "git",
  "ssh-keygen",
  "ssh-add",
);

describe.skipIf(!tools.run || !isRoot())("the daemon's SSH agents and push gates for running sandboxes", () => {
  const host = new TestHost("10.253", "nobody", "", "", { topLevel: "approvals: { deadline: 3 }" });
  const key = join(host.dir, "agent_ed25519");
  const upstream = join(host.dir, "upstream.git");
  let fingerprint = "";

  /** git as root in the test's own repositories (chowned to the agent user afterwards). */
  const git = (...args: string[]): string =>
    execFileSync("git", args, {
      encoding: "utf8",
      env: { HOME: join(host.dir, "root-home"), PATH: process.env.PATH ?? "/usr/bin:/bin" },
    });

  /** What the daemon `up` started said (shown when a gate is missing). */
  const daemonLog = (): string => {
    try {
      return readFileSync(join(host.env.FORAGE_RUN_DIR ?? "", "daemon.log"), "utf8");
    } catch {
      return "(no daemon log)";
    }
  };

  /** A shell snippet in the sandbox as the agent: its exit status and everything it printed. */
  const inside = async (sandbox: string, script: string): Promise<{ exitCode: number; output: string }> => {
    const result = await host.run(["exec", sandbox, "--", "sh", "-c", `${script} 2>&1`]);
    return { exitCode: result.exitCode, output: result.stdout + result.stderr };
  };

  /** Polls `script` in the sandbox until it succeeds (the daemon reconciles every 2 s), at most ~10 s. */
  const eventually = async (sandbox: string, script: string): Promise<{ exitCode: number; output: string }> => {
    let last = await inside(sandbox, script);
    for (let i = 0; i < 40 && last.exitCode !== 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      last = await inside(sandbox, script);
    }
    return last;
  };

  beforeAll(() => {
    // The gate runs git as the host user (the agent's uid here): it must reach the repositories.
    chmodSync(host.dir, 0o755);
    // root's git here: its identity, and the agent user's repositories are safe to it (only a global config can say so).
    mkdirSync(join(host.dir, "root-home"));
    writeFileSync(
      join(host.dir, "root-home", ".gitconfig"),
      "[user]\n\tname = Host User\n\temail = user@example.test\n[safe]\n\tdirectory = *\n",
    );
    execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "gated@test", "-f", key]);
    execFileSync("chown", [`${agentUid}:${agentUid}`, key]);
    fingerprint =
      execFileSync("ssh-keygen", ["-l", "-E", "sha256", "-f", `${key}.pub`], { encoding: "utf8" }).split(" ")[1] ?? "";
    // The upstream: main (its default branch) and topic, one commit each.
    const seed = join(host.dir, "seed");
    git("init", "-q", "--bare", "-b", "main", upstream);
    git("clone", "-q", upstream, seed);
    git("-C", seed, "commit", "-q", "--allow-empty", "-m", "first");
    git("-C", seed, "push", "-q", "origin", "main");
    git("-C", seed, "commit", "-q", "--allow-empty", "-m", "topic work");
    git("-C", seed, "push", "-q", "origin", "HEAD:refs/heads/topic");
    execFileSync("chown", ["-R", `${agentUid}:${agentUid}`, upstream]);
    // The templates name the key, so they are added once it exists (the config ends with templates:).
    appendFileSync(
      host.config,
      `  agented:\n    extends: basic\n    sshAgent: { keys: ["${key}"], confirm: false }\n  gated:\n    extends: basic\n    pushGate: {}\n`,
    );
  });
  afterAll(() => host.cleanup());

  it("serves the template's SSH agent in the sandbox: ssh-add -l lists the key", async () => {
    const up = await host.run(["up", "agented", "-t", "agented", "-w", host.workspace("agented")]);
    expect(up.exitCode, up.stderr).toBe(0);
    const listed = await eventually("agented", "ssh-add -l");
    expect(listed.output).toContain(fingerprint);
    expect(listed.output).toContain("gated@test");
    expect(listed.exitCode).toBe(0);
    expect((await inside("agented", 'echo "$SSH_AUTH_SOCK"')).output.trim()).toBe("/run/forage/ssh-agent/agent.sock");
  }, 120_000);

  it("stops the agent with its sandbox, and serves it again once started", async () => {
    expect((await host.run(["stop", "agented"])).exitCode).toBe(0);
    expect((await host.run(["start", "agented"])).exitCode).toBe(0);
    expect((await eventually("agented", "ssh-add -l")).output).toContain(fingerprint);
  }, 120_000);

  describe("a sandbox with pushGate: {} on a clone of a local bare upstream", () => {
    const workspace = join(host.dir, "workspaces", "gated");
    beforeAll(async () => {
      mkdirSync(join(host.dir, "workspaces"), { recursive: true });
      git("clone", "-q", upstream, workspace);
      execFileSync("chown", ["-R", `${agentUid}:${agentUid}`, workspace]);
      const up = await host.run(["up", "gated", "-t", "gated", "-w", workspace]);
      expect(up.exitCode, up.stderr).toBe(0);
      const socket = await eventually("gated", "test -S /run/forage-push/gate.sock");
      expect(socket.exitCode, daemonLog()).toBe(0);
    }, 120_000);

    const upstreamRef = (ref: string): string =>
      git("--git-dir", upstream, "rev-parse", "--verify", "--quiet", ref).trim();
    const commitInside = 'git -c user.name=Agent -c user.email=agent@example.test commit -q --allow-empty -m "$1"';

    /** The first waiting approval (polled for up to ~10 s), approved with forage-ctl approve (and `flags`); what it asked. */
    const approveNext = async (...flags: string[]): Promise<PushRequest | undefined> => {
      let request: PushRequest | undefined;
      for (let i = 0; i < 100 && request === undefined; i++) {
        request = (JSON.parse((await host.run(["approvals", "--json"])).stdout) as (PushRequest | undefined)[])[0];
        if (request === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect((await host.run(["approve", request?.id ?? "", ...flags])).exitCode).toBe(0);
      return request;
    };

    it("sends the push to the gate, which asks; approved with forage-ctl approve, it lands upstream", async () => {
      const pushing = inside(
        "gated",
        `cd /workspace && set -- "A feature" && ${commitInside} && git push origin HEAD:refs/heads/feature`,
      );
      const request = await approveNext();
      expect(request).toMatchObject({
        kind: "push",
        subject: { ref: "refs/heads/feature", commits: [expect.stringMatching(/^[0-9a-f]+ A feature$/)] },
      });
      const pushed = await pushing;
      expect(pushed.output).toMatch(/forage push gate: refs\/heads\/feature: approved and pushed to origin/);
      expect(pushed.exitCode).toBe(0);
      expect(upstreamRef("refs/heads/feature")).toMatch(/^[0-9a-f]{40}$/);
    }, 60_000);

    it("pushes nothing when nobody answers by the deadline", async () => {
      const pushed = await inside(
        "gated",
        `cd /workspace && set -- "Another" && ${commitInside} && git push origin HEAD:refs/heads/later`,
      );
      expect(pushed.output).toMatch(/forage push gate: refs\/heads\/later: nobody answered/);
      expect(pushed.exitCode).not.toBe(0);
      expect(() => upstreamRef("refs/heads/later")).toThrow();
    }, 60_000);

    it("refuses a force push outright", async () => {
      const before = upstreamRef("refs/heads/topic");
      const pushed = await inside("gated", `cd /workspace && git push --force origin HEAD:refs/heads/topic`);
      expect(pushed.output).toMatch(/not a fast-forward of the upstream's topic/);
      expect(pushed.exitCode).not.toBe(0);
      expect(upstreamRef("refs/heads/topic")).toBe(before);
    }, 60_000);

    it("gates a remote the user adds on the host after up, without a reset (the daemon refreshes the gate)", async () => {
      const second = join(host.dir, "second.git");
      git("clone", "-q", "--bare", upstream, second);
      git("-C", workspace, "remote", "add", "second", second);
      execFileSync("chown", ["-R", `${agentUid}:${agentUid}`, second, join(workspace, ".git")]);
      // The sandbox's git includes the gate's remotes config, which the daemon's next round rewrites.
      expect(
        (await eventually("gated", `grep -qF '"${second}"' /run/forage-push/remotes.gitconfig`)).exitCode,
        daemonLog(),
      ).toBe(0);
      const pushing = inside("gated", `cd /workspace && git push second HEAD:refs/heads/elsewhere`);
      expect(await approveNext()).toMatchObject({
        kind: "push",
        subject: { remote: "second", url: second, ref: "refs/heads/elsewhere" },
      });
      const pushed = await pushing;
      expect(pushed.output).toMatch(/refs\/heads\/elsewhere: approved and pushed to second/);
      expect(pushed.exitCode).toBe(0);
      expect(git("--git-dir", second, "rev-parse", "--verify", "--quiet", "refs/heads/elsewhere").trim()).toMatch(
        /^[0-9a-f]{40}$/,
      );
    }, 60_000);

    it("keeps a push approved --always: status shows it, and later pushes of that ref go unasked, also after a restart", async () => {
      const first = inside(
        "gated",
        `cd /workspace && set -- "Kept 1" && ${commitInside} && git push origin HEAD:refs/heads/kept`,
      );
      expect(await approveNext("--always")).toMatchObject({
        kind: "push",
        subject: { ref: "refs/heads/kept", url: upstream },
      });
      expect((await first).exitCode).toBe(0);
      const status = JSON.parse((await host.run(["status", "gated", "--json"])).stdout) as {
        pushGate: { alwaysPushed: unknown[] };
      };
      expect(status.pushGate.alwaysPushed).toEqual([{ url: upstream, ref: "refs/heads/kept" }]);
      expect((await host.run(["status", "gated"])).stdout).toContain(
        `pushes     refs/heads/kept to ${upstream} go unasked (approved --always)`,
      );
      expect((await host.run(["stop", "gated"])).exitCode).toBe(0);
      expect((await host.run(["start", "gated"])).exitCode).toBe(0);
      expect((await eventually("gated", "test -S /run/forage-push/gate.sock")).exitCode, daemonLog()).toBe(0);
      // The gate of the new run reads the kept approval from the metadata: nothing is asked (nobody would answer).
      const second = await inside(
        "gated",
        `cd /workspace && set -- "Kept 2" && ${commitInside} && git push origin HEAD:refs/heads/kept`,
      );
      expect(second.output).toMatch(
        /refs\/heads\/kept: pushed to origin as \S+ without asking: approved --always for this ref/,
      );
      expect(second.exitCode).toBe(0);
      expect(upstreamRef("refs/heads/kept")).toBe(git("-C", workspace, "rev-parse", "HEAD").trim());
      expect(JSON.parse((await host.run(["approvals", "--json"])).stdout)).toEqual([]);
    }, 120_000);

    it("refuses a push to the upstream's default branch, protected by default", async () => {
      const pushed = await inside("gated", `cd /workspace && git push origin HEAD:refs/heads/main`);
      expect(pushed.output).toMatch(/main is a protected branch/);
      expect(pushed.exitCode).not.toBe(0);
    }, 60_000);
  });
});

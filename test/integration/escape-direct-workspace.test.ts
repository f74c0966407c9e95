import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost } from "./harness.js";
import { asOwner, installStandInSystem } from "./host-user.js";

/*
 * Gaps of issue 26 in a directory mounted as is (-w).
 *
 * Two sandboxes on one -w folder. Stopping one removed the stand-ins by their shape, so
 * the other, still running, lost them (`touch /workspace/.envrc` went from refused to allowed: a
 * mount point unlinked on the host is unmounted in every namespace). Stand-ins are now recorded by
 * what `up` made, per folder, and the last sandbox to leave removes them; `up` says when a folder
 * is in use already. The control: a sandbox whose template lifts .envrc does create it.
 *
 * Nested repositories: the agent made a repository with core.fsmonitor inside the checkout and
 * `git add`ed it; the user's plain `git status` at the top ran it (the control). forage-ctl
 * vcs-check lists it, and forage-ctl git shows the change without running it.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "git", "nix-build");
const gvisor = toolsAvailable("runsc");

describe.skipIf(!tools.run || !isRoot())("two sandboxes on one workspace folder", () => {
  const host = new TestHost(
    "10.211",
    "nobody",
    "\n  lenient:\n    extends: basic\n    workspace: { unprotected: [.envrc] }\n  nixbasic:\n    extends: basic\n",
  );
  // Judged by what is there after, not by touch's status: gVisor answers a chmod or utimes on a
  // read-only bind (the stand-in directory) with success and changes nothing.
  const touchEnvrc =
    "touch /workspace/.envrc/x 2>/dev/null || touch /workspace/.envrc 2>/dev/null; [ -f /workspace/.envrc ] || [ -e /workspace/.envrc/x ] && echo allowed || echo refused";

  beforeAll(() => {
    chmodSync(host.dir, 0o711);
    installStandInSystem(host.dir, host.extraEnv, ["nixbasic"]);
  });
  afterAll(() => host.cleanup());

  it("control: a sandbox whose template lifts .envrc creates it in the folder", async () => {
    const ws = host.workspace("lifted");
    expect((await host.run(["up", "lifted", "-t", "lenient", "-w", ws])).exitCode).toBe(0);
    expect(await host.sh("lifted", touchEnvrc)).toBe("allowed\n");
    expect(lstatSync(join(ws, ".envrc")).isFile()).toBe(true);
    expect((await host.run(["down", "lifted"])).exitCode).toBe(0);
  });

  // Either runtime in either role: the NixOS one (the stand-in system of test/nix/stand-in) binds
  // its stand-ins too, and gVisor's reach the sandbox through its gofer.
  it.each([
    ["nspawn", "nspawn-nix", "h"],
    ["nspawn-nix", "nspawn", "n"],
    ...(gvisor.run
      ? [
          ["nspawn", "gvisor", "hg"],
          ["gvisor", "nspawn", "gh"],
        ]
      : []),
  ])(
    "keeps the stand-ins while the other sandbox runs, says the folder is in use, and the last one out removes them (%s, then %s)",
    async (firstRuntime, secondRuntime, tag) => {
      const [first, second] = [`first${tag}`, `second${tag}`];
      const ws = host.workspace(`shared${tag}`);
      const upFirst = await host.run(["up", first, "-t", "nixbasic", "--runtime", firstRuntime, "-w", ws]);
      expect([upFirst.exitCode, upFirst.stderr]).toEqual([0, ""]);
      const upSecond = await host.run(["up", second, "-t", "nixbasic", "--runtime", secondRuntime, "-w", ws]);
      expect(upSecond.exitCode).toBe(0);
      expect(upSecond.stderr).toContain(`${ws} is in use by sandbox "${first}" too`);
      expect(await host.sh(second, touchEnvrc)).toBe("refused\n");
      expect((await host.run(["stop", first])).exitCode).toBe(0);
      // The stand-in is still there for the sandbox that runs, on the host and inside.
      expect(lstatSync(join(ws, ".envrc")).isDirectory()).toBe(true);
      expect(await host.sh(second, touchEnvrc)).toBe("refused\n");
      expect((await host.run(["down", second])).exitCode).toBe(0);
      expect(readdirSync(ws)).toEqual([]);
      expect((await host.run(["down", first])).exitCode).toBe(0);
    },
  );

  it("removes only what up made: an empty directory of the user's own at a protected name stays", async () => {
    const ws = host.workspace("own");
    mkdirSync(join(ws, ".vscode"));
    await execa("chown", [`${agentUid}:${agentUid}`, join(ws, ".vscode")]);
    expect((await host.run(["up", "own", "-t", "basic", "-w", ws])).exitCode).toBe(0);
    expect(
      await host.sh("own", "touch /workspace/.vscode/tasks.json 2>/dev/null && echo allowed || echo refused"),
    ).toBe("refused\n");
    expect((await host.run(["down", "own"])).exitCode).toBe(0);
    expect(readdirSync(ws)).toEqual([".vscode"]);
    expect(existsSync(join(ws, ".envrc"))).toBe(false);
  });

  describe("a nested repository the agent plants", () => {
    const home = join(host.dir, "home");
    const markers = join(host.dir, "markers");
    const marker = join(markers, "fsmonitor-ran");
    /** As the agent: a nested repository whose fsmonitor touches the marker (a path only the host has), added to the top one. */
    const plant = `export HOME=/tmp GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@x; mkdir nested && cd nested && git init -q && git config core.fsmonitor 'touch ${marker} #' && echo x > f && git add f && git commit -q -m n && cd .. && git add nested 2>/dev/null; echo planted`;

    beforeAll(async () => {
      mkdirSync(home);
      mkdirSync(markers);
      await execa("chown", [`${agentUid}:${agentUid}`, home, markers]);
    });

    it("is listed by vcs-check, and forage-ctl git shows it without running its fsmonitor; the user's plain git status runs it (the control)", async () => {
      const ws = host.workspace("nested");
      const owner = (...args: string[]) => asOwner(home, "git", args, ws);
      await owner("init", "-q", "-b", "main");
      writeFileSync(join(ws, "README.md"), "hi\n");
      await execa("chown", [`${agentUid}:${agentUid}`, join(ws, "README.md")]);
      await owner("add", "-A");
      await owner("commit", "-q", "-m", "initial");
      expect((await host.run(["up", "nested", "-t", "basic", "-w", ws])).exitCode).toBe(0);
      expect(await host.sh("nested", plant)).toBe("planted\n");
      expect(existsSync(marker)).toBe(false);
      const check = await host.run(["vcs-check", "nested", "--json"]);
      expect(check.exitCode).toBe(1);
      expect((JSON.parse(check.stdout) as { findings: unknown[] }).findings).toContainEqual(
        expect.objectContaining({
          repository: "nested",
          vcs: "git",
          key: "core.fsmonitor",
          value: `touch ${marker} #`,
          file: "nested/.git/config",
        }),
      );
      const safe = await host.run(["git", "nested", "--", "status"]);
      expect(safe.exitCode, safe.stderr).toBe(0);
      expect(safe.stdout).toMatch(/new file:\s+nested/);
      expect(existsSync(marker)).toBe(false);
      // The control: the user's own git status at the top runs the nested repository's fsmonitor.
      await owner("status", "--short");
      expect(existsSync(marker)).toBe(true);
      expect((await host.run(["down", "nested"])).exitCode).toBe(0);
    });
  });
});

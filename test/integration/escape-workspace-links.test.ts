import {
  chmodSync,
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost } from "./harness.js";
import { asOwner, busyboxPrelude, installStandInSystem } from "./host-user.js";

/*
 * Escape 3 of issue 26: a protected name that is a symbolic link at `up` was neither bound nor
 * stood in for, so the agent replaced it (`rm .git; git init; git config core.fsmonitor …`) and
 * the user's next `git status` ran the agent's command. Now every link on the way to a protected
 * path is bound onto itself (it cannot be removed or renamed), and what it leads to inside the
 * workspace is held read-only like the name itself. Each attack runs as the agent on both
 * nspawn runtimes; its control is the same attack in a sandbox whose template lifts the paths
 * (workspace.unprotected), where it does reach the host user's tools.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "git", "busybox", "nix-build");
const gvisor = toolsAvailable("runsc");
const lenient =
  "\n  lenient:\n    extends: basic\n    workspace: { unprotected: [.git/config, .git/hooks, .envrc, .vscode, .forage, forage.yaml] }\n";

/** `git init; git config core.fsmonitor` as the agent: with git where the sandbox has it, else what they write. */
const gitInitAttack =
  "$B rm -f .git; if command -v git >/dev/null; then git init -q . && git config core.fsmonitor 'touch fsmonitor-ran #'; " +
  "else mkdir -p .git/objects .git/refs/heads && echo 'ref: refs/heads/main' > .git/HEAD && printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = \"touch fsmonitor-ran #\"\\n' > .git/config; fi";
/** Replaces (or writes through) each linked name, and plants an fsmonitor where `.git` leads. */
const namesAttack = [
  "printf '[core]\\n\\tfsmonitor = \"touch fsmonitor-ran #\"\\n' >> .git/config",
  "printf '[core]\\n\\tfsmonitor = \"touch fsmonitor-ran #\"\\n' >> realgit/config",
  "$B rm -f .envrc; echo 'echo agent' > .envrc",
  "$B rm -f forage.yaml; echo 'agent: true' > forage.yaml",
  "echo agent > editor/tasks.json; $B mv editor editor-aside; $B rm -f .vscode; mkdir -p .vscode && echo agent > .vscode/tasks.json",
  "echo agent > forage-dir/init; $B mv forage-dir forage-aside; $B rm -f .forage; mkdir -p .forage && echo agent > .forage/init",
  "true",
].join("; ");
/** Moves the directory .git leads to aside, and removes the link (so a .git of the agent's could take its place). */
const gitMoveAttack = "$B mv realgit realgit-aside; $B rm -f .git";
const linkedNames = {
  ".git": "realgit",
  ".envrc": "../shared/envrc",
  "forage.yaml": "../shared/forage.yaml",
  ".vscode": "editor",
  ".forage": "forage-dir",
} as const;

describe.skipIf(!tools.run || !isRoot())("escapes through a protected name that is a symbolic link", () => {
  const host = new TestHost("10.209", "nobody", lenient);
  const home = join(host.dir, "home");
  let count = 0;

  beforeAll(async () => {
    // The user reaches their folders in the test's directory (mkdtemp made it 0700, root's).
    chmodSync(host.dir, 0o711);
    mkdirSync(home);
    await execa("chown", [`${agentUid}:${agentUid}`, home]);
    installStandInSystem(host.dir, host.extraEnv, ["basic", "lenient"]);
  }, 180_000);
  afterAll(() => host.cleanup());

  /** A fresh folder owned by the user: `<dir>/ws` (the workspace) with `<dir>/gitdirs` and `<dir>/shared` beside it. */
  const folder = async (): Promise<string> => {
    const dir = join(host.dir, `case-${++count}`);
    mkdirSync(join(dir, "ws"), { recursive: true });
    mkdirSync(join(dir, "gitdirs"));
    mkdirSync(join(dir, "shared"));
    writeFileSync(join(dir, "ws/README.md"), "hello\n");
    await execa("chown", ["-R", `${agentUid}:${agentUid}`, dir]);
    await asOwner(home, "git", ["init", "-q", "-b", "main"], join(dir, "ws"));
    await asOwner(home, "git", ["add", "-A"], join(dir, "ws"));
    await asOwner(home, "git", ["commit", "-q", "-m", "initial"], join(dir, "ws"));
    return dir;
  };
  /** The owner's own link (git refuses a repository whose .git link another user owns). */
  const ownersLink = (target: string, path: string): void => {
    symlinkSync(target, path);
    lchownSync(path, agentUid, agentUid);
  };
  /** The user's plain `git status` there (it must succeed: a failing git proves nothing); true when the agent's fsmonitor ran. */
  const statusRunsPlanted = async (ws: string): Promise<boolean> => {
    await asOwner(home, "git", ["status", "--short"], ws);
    return existsSync(join(ws, "fsmonitor-ran"));
  };
  const up = async (name: string, template: string, runtime: string, ws: string): Promise<void> => {
    const result = await host.run(["up", name, "-t", template, "--runtime", runtime, "-w", ws]);
    expect(result.exitCode, result.stderr).toBe(0);
  };
  /** Runs the attack as the agent; returns how many of its steps were refused because a mount point is busy. */
  const attack = async (name: string, script: string): Promise<number> =>
    Number((await host.sh(name, `(${busyboxPrelude}${script}) 2>&1 | grep -ci 'busy' || true`)).trim());

  describe.each(["nspawn", "nspawn-nix", ...(gvisor.run ? ["gvisor"] : [])])("on the %s runtime", (runtime) => {
    const tag = { nspawn: "h", "nspawn-nix": "n" }[runtime] ?? "g";

    it("control: with .git's paths lifted, the agent replaces a linked .git and the user's git status runs its fsmonitor", async () => {
      const dir = await folder();
      // Dangling (a gitdir that exists would guard .git's internals through the link, lifted or not).
      renameSync(join(dir, "ws/.git"), join(dir, "gitdirs/gone.git"));
      ownersLink("../gitdirs/x.git", join(dir, "ws/.git"));
      await up(`${tag}lc1`, "lenient", runtime, join(dir, "ws"));
      expect(await attack(`${tag}lc1`, gitInitAttack)).toBe(0);
      expect(lstatSync(join(dir, "ws/.git")).isDirectory()).toBe(true);
      expect(await statusRunsPlanted(join(dir, "ws"))).toBe(true);
      expect((await host.run(["down", `${tag}lc1`])).exitCode).toBe(0);
    });

    it("keeps a .git that links out of the workspace in place: rm fails, and the user's git status runs nothing", async () => {
      const dir = await folder();
      renameSync(join(dir, "ws/.git"), join(dir, "gitdirs/x.git"));
      ownersLink("../gitdirs/x.git", join(dir, "ws/.git"));
      await up(`${tag}lg1`, "basic", runtime, join(dir, "ws"));
      expect(await attack(`${tag}lg1`, gitInitAttack)).toBe(1);
      expect(readlinkSync(join(dir, "ws/.git"))).toBe("../gitdirs/x.git");
      expect(await statusRunsPlanted(join(dir, "ws"))).toBe(false);
      expect((await host.run(["down", `${tag}lg1`])).exitCode).toBe(0);
      expect(await statusRunsPlanted(join(dir, "ws"))).toBe(false);
    });

    /** `ws` with .git → realgit inside, and .envrc, forage.yaml (out), .vscode, .forage (in) linked. */
    const linkedFolder = async (): Promise<string> => {
      const dir = await folder();
      const ws = join(dir, "ws");
      renameSync(join(ws, ".git"), join(ws, "realgit"));
      mkdirSync(join(ws, "editor"));
      writeFileSync(join(ws, "editor/settings.json"), "{}\n");
      mkdirSync(join(ws, "forage-dir"));
      writeFileSync(join(ws, "forage-dir/init"), "mine\n");
      writeFileSync(join(dir, "shared/envrc"), "use nix\n");
      writeFileSync(join(dir, "shared/forage.yaml"), "templates: {}\n");
      for (const [name, target] of Object.entries(linkedNames)) symlinkSync(target, join(ws, name));
      await execa("chown", ["-hR", `${agentUid}:${agentUid}`, dir]);
      return ws;
    };
    /** What of the user's files the attack changed: names no longer the same link, and files holding the agent's text. */
    const changed = (ws: string): string[] => [
      ...Object.entries(linkedNames).flatMap(([name, target]) =>
        lstatSync(join(ws, name), { throwIfNoEntry: false })?.isSymbolicLink() === true &&
        readlinkSync(join(ws, name)) === target
          ? []
          : [name],
      ),
      ...["../shared/envrc", "../shared/forage.yaml", "editor/tasks.json", "forage-dir/init", "realgit/config"].filter(
        (file) => existsSync(join(ws, file)) && /agent|fsmonitor/.test(readFileSync(join(ws, file), "utf8")),
      ),
    ];

    it("control: with the names lifted, the agent replaces or writes through linked .envrc, forage.yaml, .vscode, .forage and .git's config", async () => {
      const ws = await linkedFolder();
      await up(`${tag}lc2`, "lenient", runtime, ws);
      await attack(`${tag}lc2`, namesAttack);
      expect(changed(ws)).toEqual(
        expect.arrayContaining([".envrc", ".forage", ".vscode", "forage.yaml", "realgit/config"]),
      );
      expect(await statusRunsPlanted(ws)).toBe(true);
      expect((await host.run(["down", `${tag}lc2`])).exitCode).toBe(0);
    });

    it("holds linked .envrc, forage.yaml, .vscode, .forage and .git, and what they lead to inside the workspace, read-only", async () => {
      const ws = await linkedFolder();
      await up(`${tag}lg2`, "basic", runtime, ws);
      // Every rm and mv of a link or of a directory a link leads to is refused as busy.
      expect(await attack(`${tag}lg2`, namesAttack)).toBe(6);
      expect(await attack(`${tag}lg2`, gitMoveAttack)).toBe(2);
      expect(changed(ws)).toEqual([]);
      expect(await statusRunsPlanted(ws)).toBe(false);
      expect(readdirSync(join(ws, "editor"))).toEqual(["settings.json"]);
      expect((await host.run(["down", `${tag}lg2`])).exitCode).toBe(0);
      expect(changed(ws)).toEqual([]);
      expect(await statusRunsPlanted(ws)).toBe(false);
    });
  });
});

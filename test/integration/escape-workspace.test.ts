import {
  chmodSync,
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost } from "./harness.js";
import { asOwner } from "./host-user.js";
import { onEachRuntime } from "./runtimes.js";

/*
 * Escapes through a directly mounted workspace (-w): what the agent writes into `.git`, `.jj` or
 * a protected path that is missing must not reach the host user's next git, jj, direnv or
 * forage-ctl. Every attempt has a control: the same writes on the host (where nothing protects
 * the repository) do take effect, so no attempt passes by accident.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "git", "jj", "gcc");

describe.each(onEachRuntime(tools, { nspawn: "10.241", gvisor: "10.208" }))(
  "escapes through a directly mounted workspace ($runtime runtime)",
  ({ runtime, prefix, runs }) => {
    if (!runs || !isRoot()) return void it.skip("needs root and the runtime's tools");
    const host = new TestHost(
      prefix,
      "nobody",
      "\n  lenient:\n    extends: basic\n    workspace: { unprotected: [.envrc] }\n",
      "",
      { runtime },
    );
    const repos = join(host.dir, "repos");
    const home = join(host.dir, "home");

    /** Runs a program on the host as the repositories' owner (the user the attacks aim at), with a jj identity too. */
    const as = (program: string, args: string[], cwd = "/"): Promise<string> =>
      asOwner(home, program, args, cwd, { JJ_USER: "Owner", JJ_EMAIL: "o@example.com" });
    const gitRepo = async (name: string, extraConfig: string[] = []): Promise<string> => {
      const repo = join(repos, name);
      mkdirSync(repo, { recursive: true });
      writeFileSync(join(repo, "README.md"), "hello\n");
      await execa("chown", ["-R", `${agentUid}:${agentUid}`, repo]);
      await as("git", ["-C", repo, "init", "-q", "-b", "main"]);
      for (let i = 0; i < extraConfig.length; i += 2)
        await as("git", ["-C", repo, "config", extraConfig[i] ?? "", extraConfig[i + 1] ?? ""]);
      await as("git", ["-C", repo, "add", "-A"]);
      await as("git", ["-C", repo, "commit", "-q", "-m", "initial"]);
      return repo;
    };
    /** The user's plain `git status` in the repository (it must succeed: a failing git proves nothing); true when the planted command ran. */
    const statusRunsPlanted = async (repo: string, marker: string): Promise<boolean> => {
      await as("git", ["status", "--short"], repo);
      return existsSync(join(repo, marker));
    };
    /**
     * Runs `script` as the agent in the sandbox; returns how many lines said "Read-only file
     * system". gVisor checks permissions before the read-only flag, so it answers a write to a
     * root-owned stand-in with "Permission denied": there either is the refusal.
     */
    const refused = runtime === "gvisor" ? "Read-only file system\\|Permission denied" : "Read-only file system";
    const refusals = async (sandbox: string, script: string): Promise<number> =>
      Number((await host.sh(sandbox, `(${script}) 2>&1 | grep -c '${refused}' || true`)).trim());

    // The attack from the issue: .git/commondir → ../.x, whose config sets core.fsmonitor.
    const commondirAttack =
      "mkdir -p .x/objects .x/refs && printf '[core]\\n\\tfsmonitor = \"touch fsmonitor-ran #\"\\n' > .x/config && printf '../.x\\n' > .git/commondir";
    const worktreeConfigAttack = "printf '[core]\\n\\tfsmonitor = \"touch fsmonitor-ran #\"\\n' > .git/config.worktree";
    const excludeAttack = "echo hidden.sh > hidden.sh && mkdir -p .git/info && echo hidden.sh >> .git/info/exclude";

    beforeAll(async () => {
      chmodSync(host.dir, 0o711);
      mkdirSync(repos, { recursive: true });
      mkdirSync(home, { recursive: true });
      await execa("chown", ["-R", `${agentUid}:${agentUid}`, repos, home]);
    });
    afterAll(() => host.cleanup());

    it("control: on the host, the commondir, config.worktree and info/exclude writes do reach the user's git", async () => {
      const plain = await gitRepo("control-commondir");
      await as("sh", ["-c", commondirAttack], plain);
      expect(await statusRunsPlanted(plain, "fsmonitor-ran")).toBe(true);
      const worktreeConfig = await gitRepo("control-worktree-config", ["extensions.worktreeConfig", "true"]);
      await as("sh", ["-c", worktreeConfigAttack], worktreeConfig);
      expect(await statusRunsPlanted(worktreeConfig, "fsmonitor-ran")).toBe(true);
      const exclude = await gitRepo("control-exclude");
      await as("sh", ["-c", excludeAttack], exclude);
      expect(await as("git", ["status", "--short"], exclude)).not.toContain("hidden.sh");
    });

    it("keeps .git/commondir, config.worktree, info/ and objects/info/alternates read-only, present or not, so the user's git status runs nothing", async () => {
      const repo = await gitRepo("attacked", ["extensions.worktreeConfig", "true"]);
      expect((await host.run(["up", "gitx", "-t", "basic", "-w", repo])).exitCode).toBe(0);
      expect(await refusals("gitx", commondirAttack)).toBe(1);
      expect(await refusals("gitx", worktreeConfigAttack)).toBe(1);
      expect(await refusals("gitx", excludeAttack)).toBe(1);
      expect(await refusals("gitx", "echo /tmp/objects > .git/objects/info/alternates")).toBe(1);
      // The stand-ins are what git reads as nothing: the user's git works while the sandbox runs.
      expect(await as("git", ["status", "--short"], repo)).toContain("hidden.sh");
      // Their mount points are the user's own entries, holding what the stand-in holds.
      const commondir = statSync(join(repo, ".git/commondir"));
      expect([commondir.isFile(), commondir.uid, readFileSync(join(repo, ".git/commondir"), "utf8")]).toEqual([
        true,
        agentUid,
        ".\n",
      ]);
      expect(statSync(join(repo, ".git/worktrees")).isDirectory()).toBe(true);
      expect(await statusRunsPlanted(repo, "fsmonitor-ran")).toBe(false);
      expect((await host.run(["down", "gitx"])).exitCode).toBe(0);
      expect(await statusRunsPlanted(repo, "fsmonitor-ran")).toBe(false);
      // Stopping removes the stand-ins' mount points from the user's .git.
      for (const entry of ["commondir", "config.worktree", "worktrees"])
        expect(existsSync(join(repo, ".git", entry))).toBe(false);
    });

    it("still lets the agent's git add, commit, branch, pack refs and gc in the workspace", async () => {
      const repo = await gitRepo("working");
      expect((await host.run(["up", "gitok", "-t", "basic", "-w", repo])).exitCode).toBe(0);
      const script =
        "export HOME=/tmp GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@x GIT_COMMITTER_NAME=A GIT_COMMITTER_EMAIL=a@x; echo x > x.txt && git add x.txt && git commit -q -m agent && git checkout -q -b side && git pack-refs --all && git gc -q && git log --format=%s -1 && git rev-parse --abbrev-ref HEAD";
      expect(await host.sh("gitok", script)).toBe("agent\nside\n");
      expect((await host.run(["down", "gitok"])).exitCode).toBe(0);
      expect(await as("git", ["log", "--format=%s", "-1", "side"], repo)).toBe("agent");
    });

    it("keeps a worktree's .git pointer file read-only (control: rewritten on the host, it moves the user's git to the agent's config)", async () => {
      const repo = await gitRepo("pointed");
      const worktree = join(repos, "pointed-wt");
      await as("git", ["-C", repo, "worktree", "add", "-q", "-b", "wt", worktree]);
      const rewrite =
        "mkdir -p .y/objects .y/refs && echo 'ref: refs/heads/main' > .y/HEAD && printf '[core]\\n\\tfsmonitor = \"touch fsmonitor-ran #\"\\n' > .y/config && echo \"gitdir: $PWD/.y\" > .git";
      expect((await host.run(["up", "ptr", "-t", "basic", "-w", worktree])).exitCode).toBe(0);
      expect(await refusals("ptr", rewrite.replace("$PWD", "/workspace"))).toBe(1);
      expect((await host.run(["down", "ptr"])).exitCode).toBe(0);
      expect(await statusRunsPlanted(worktree, "fsmonitor-ran")).toBe(false);
      await as("sh", ["-c", rewrite], worktree);
      expect(await statusRunsPlanted(worktree, "fsmonitor-ran")).toBe(true);
    });

    const jjRepo = async (name: string): Promise<string> => {
      const repo = join(repos, name);
      mkdirSync(repo);
      await execa("chown", [`${agentUid}:${agentUid}`, repo]);
      await as("jj", ["git", "init", "--no-colocate", repo]);
      return repo;
    };
    /** The user's jj's idea of user.name in `repo` (jj adopts a repo or workspace config it finds without an id). */
    const jjUserName = async (repo: string): Promise<string> =>
      (
        await execa("jj", ["-R", repo, "config", "get", "user.name"], {
          uid: agentUid,
          gid: agentUid,
          cwd: repo,
          reject: false,
          extendEnv: false,
          env: { HOME: home, PATH: "/usr/local/bin:/usr/bin:/bin" },
        })
      ).stdout.trim();
    const jjConfigAttack =
      "printf '[user]\\nname = \"attacker\"\\n' > .jj/workspace-config.toml; printf '[user]\\nname = \"attacker\"\\n' > .jj/repo/config.toml";

    it("control: on the host, a workspace-config.toml or repo config.toml written into .jj becomes the user's jj config", async () => {
      const repo = await jjRepo("jj-control");
      await as("sh", ["-c", jjConfigAttack], repo);
      expect(await jjUserName(repo)).toBe("attacker");
    });

    it("keeps .jj read-only but for what jj writes, so jj adopts no config the agent writes, and keeps the store's type and git target read-only", async () => {
      const repo = await jjRepo("jj-attacked");
      expect((await host.run(["up", "jjx", "-t", "basic", "-w", repo])).exitCode).toBe(0);
      expect(await refusals("jjx", jjConfigAttack)).toBe(2);
      expect(
        await refusals("jjx", "echo /tmp/elsewhere > .jj/repo/store/git_target; echo local > .jj/repo/store/type"),
      ).toBe(2);
      expect(await jjUserName(repo)).not.toBe("attacker");
      // jj itself still works inside (its operation log and store are writable).
      expect(
        await host.sh(
          "jjx",
          "export HOME=/tmp JJ_USER=A JJ_EMAIL=a@x; echo y > y.txt && jj describe -m agent-change >/dev/null 2>&1 && jj log --no-graph -r @ -T description",
        ),
      ).toBe("agent-change\n");
      expect((await host.run(["down", "jjx"])).exitCode).toBe(0);
      expect(await jjUserName(repo)).not.toBe("attacker");
      expect(await as("jj", ["-R", repo, "log", "--no-graph", "-r", "@", "-T", "description"])).toBe("agent-change");
    });

    it("keeps a jj workspace's .jj read-only under -r too (the user's jj there would adopt a workspace-config.toml)", async () => {
      const repo = await jjRepo("jj-managed");
      expect((await host.run(["up", "jjr", "-t", "basic", "-r", repo])).exitCode).toBe(0);
      expect(await refusals("jjr", "printf '[user]\\nname = \"attacker\"\\n' > .jj/workspace-config.toml")).toBe(1);
      expect(
        await host.sh(
          "jjr",
          "export HOME=/tmp JJ_USER=A JJ_EMAIL=a@x; jj describe -m inside >/dev/null 2>&1 && jj log --no-graph -r @ -T description",
        ),
      ).toBe("inside\n");
      expect((await host.run(["down", "jjr"])).exitCode).toBe(0);
    });

    it("protects protected paths that do not exist at up: the agent cannot create them (control: a lifted one can be), and none is left behind", async () => {
      const workspace = host.workspace("absent");
      const absent = [
        ".envrc",
        ".vscode/tasks.json",
        ".forage/init",
        "forage.config.ts",
        "forage.yaml",
        "forage.json",
        ".git/config",
        ".git/hooks/pre-commit",
        ".jj/repo/config.toml",
      ];
      expect((await host.run(["up", "absent", "-t", "basic", "-w", workspace])).exitCode).toBe(0);
      // Removing, moving or writing through the stand-in all fail (a mount point is busy, and read-only).
      const attempt = (path: string): string =>
        `mkdir -p "$(dirname ${path})" 2>/dev/null; rmdir ${path} 2>/dev/null; mv ${path} aside 2>/dev/null; (echo x > ${path}) 2>/dev/null && echo written || echo refused`;
      for (const path of absent) expect([path, await host.sh("absent", attempt(path))]).toEqual([path, "refused\n"]);
      expect((await host.run(["down", "absent"])).exitCode).toBe(0);
      expect((await as("ls", ["-A", workspace])).trim()).toBe("");
      const lifted = host.workspace("lifted");
      expect((await host.run(["up", "lifted", "-t", "lenient", "-w", lifted])).exitCode).toBe(0);
      expect(await host.sh("lifted", "echo 'use nix' > .envrc && cat .envrc")).toBe("use nix\n");
      expect((await host.run(["down", "lifted"])).exitCode).toBe(0);
    });

    describe("a directory swapped for a link to a directory behind root's 0700 one while up runs", () => {
      const swapDir = join(host.dir, "swap");
      // Readable in itself, but behind root's 0700 directory: the agent reaches it only if it is mounted.
      const secret = join(host.dir, "private", "shared");
      let swapper = "";
      /**
       * Swaps swap/ws (the user's directory) and swap/link (→ the private directory) as the user, for
       * `seconds`: as fast as it can, or holding the directory up to `dirHoldUs` and the link
       * `linkHoldUs` (checks then mostly see the directory, and a later lookup sometimes the link).
       */
      const swapping = (seconds: number, dirHoldUs = 0, linkHoldUs = 0) =>
        execa(
          swapper,
          [join(swapDir, "ws"), join(swapDir, "link"), String(seconds), String(dirHoldUs), String(linkHoldUs)],
          { uid: agentUid, gid: agentUid, reject: false },
        );

      /** Puts the directory back at swap/ws after a swapper was killed half-way. */
      const unswap = (): void => {
        if (!lstatSync(join(swapDir, "ws")).isSymbolicLink()) return;
        renameSync(join(swapDir, "ws"), join(swapDir, "tmp"));
        renameSync(join(swapDir, "link"), join(swapDir, "ws"));
        renameSync(join(swapDir, "tmp"), join(swapDir, "link"));
      };

      beforeAll(async () => {
        swapper = join(host.dir, "swap-names");
        writeFileSync(`${swapper}.c`, swapSource);
        await execa("gcc", ["-O2", "-o", swapper, `${swapper}.c`]);
        mkdirSync(join(swapDir, "ws"), { recursive: true });
        writeFileSync(join(swapDir, "ws", "mine.txt"), "mine\n");
        mkdirSync(join(host.dir, "private"), { mode: 0o700 });
        mkdirSync(secret, { mode: 0o755 });
        writeFileSync(join(secret, "secret.txt"), "root's\n", { mode: 0o644 });
        symlinkSync(secret, join(swapDir, "link"));
        await execa("chown", ["-hR", `${agentUid}:${agentUid}`, swapDir]);
      });

      it("control: systemd-nspawn given the path binds the private directory within 25 attempts", async () => {
        const root = minimalRoot(join(host.dir, "control-root"));
        const swap = swapping(60);
        let seen = 0;
        for (let i = 0; i < 25 && seen === 0; i++) {
          const run = await execa(
            "systemd-nspawn",
            [
              "--quiet",
              "--register=no",
              "--keep-unit",
              "--console=pipe",
              `--directory=${root}`,
              "--bind-ro=/usr",
              `--bind-ro=${join(swapDir, "ws")}:/mnt/x`,
              "--",
              "/usr/bin/ls",
              "/mnt/x",
            ],
            { reject: false, timeout: 20_000 },
          );
          if (run.stdout.includes("secret.txt")) seen++;
        }
        swap.kill("SIGKILL");
        await swap;
        unswap();
        expect(seen).toBeGreaterThan(0);
      });

      it("never mounts the private directory in 25 ups: what was checked is what is bound", async () => {
        const outcomes = { up: 0, refused: 0 };
        // The first 12 against a tight swap loop, the rest against one that mostly shows the directory.
        let swap = swapping(600);
        for (let i = 0; i < 25; i++) {
          if (i === 12) {
            swap.kill("SIGKILL");
            await swap;
            unswap();
            swap = swapping(600, 20_000, 500);
          }
          const up = await host.run(["up", `sw${i}`, "-t", "basic", "-w", join(swapDir, "ws")]);
          if (up.exitCode !== 0) {
            outcomes.refused++;
            continue;
          }
          outcomes.up++;
          expect(await host.sh(`sw${i}`, "ls /workspace/mine.txt /workspace/secret.txt 2>/dev/null || true")).toBe(
            "/workspace/mine.txt\n",
          );
          expect((await host.run(["down", `sw${i}`])).exitCode).toBe(0);
        }
        swap.kill("SIGKILL");
        await swap;
        // Some ups must have got through the swapping for the check above to mean anything.
        expect(outcomes.up).toBeGreaterThan(0);
        console.log(
          `swap loop: ${outcomes.up} ups succeeded (the user's directory each time), ${outcomes.refused} refused`,
        );
        // 25 ups and downs: about 17 s on nspawn, 49 s on gvisor here, more on a loaded machine.
      }, 240_000);
    });
  },
);

/** Swaps two names atomically (renameat2 RENAME_EXCHANGE) until killed or argv[3] seconds pass, holding each state argv[4] (random up to) and argv[5] µs. */
const swapSource = `#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>
static void swap(char **argv) { syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], 2 /* RENAME_EXCHANGE */); }
int main(int argc, char **argv) {
  if (argc != 6) return 64;
  alarm((unsigned)atoi(argv[3]));
  int dirHold = atoi(argv[4]), linkHold = atoi(argv[5]);
  for (;;) {
    if (dirHold > 0) usleep((useconds_t)(rand() % dirHold));
    swap(argv);
    if (linkHold > 0) usleep((useconds_t)linkHold);
    swap(argv);
  }
}
`;

/** The smallest tree systemd-nspawn runs a host program in: the host's /usr is bound over usr/. */
function minimalRoot(root: string): string {
  for (const dir of ["usr", "etc", "proc", "sys", "dev", "tmp", "mnt/x"])
    mkdirSync(join(root, dir), { recursive: true });
  for (const dir of ["bin", "sbin", "lib", "lib64"]) symlinkSync(`usr/${dir}`, join(root, dir));
  copyFileSync("/etc/os-release", join(root, "etc/os-release"));
  return root;
}

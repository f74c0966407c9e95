import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { agentUid, TestHost } from "./harness.js";
import { onEachRuntime } from "./runtimes.js";

/*
 * jj workspaces and git worktrees of real repositories, used from inside real sandboxes. The
 * repositories belong to the configured user (nobody), as a user's own would; host-side checks run
 * git and jj as that user too.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "git", "jj");

const mounts = `
  composed:
    extends: basic
    workspace:
      mounts:
        a-code: { containerPath: /workspace/code }
        b-data: { containerPath: /data, hostPath: DATA }
        c-missing: { containerPath: /missing, hostPath: /nonexistent/forage-test }
  composed-ok:
    extends: basic
    workspace:
      mounts:
        code: { containerPath: /src/code }
        docs: { containerPath: /src/docs, repo: docs }
        data: { containerPath: /data, hostPath: DATA, readOnly: true }
  configured:
    runtime: RUNTIME
    agents:
      helper: { package: bashInteractive, executable: bash, hostConfigDir: DATA, hostConfigDirReadOnly: true }
      other: { package: bashInteractive, executable: bash, hostConfigDir: /nonexistent/forage-config, containerConfigDir: /opt/other }
  beads:
    extends: basic
    workspace: { useBeads: { enable: true } }
  lenient:
    extends: basic
    workspace: { unprotected: [.envrc] }
`;

describe.each(onEachRuntime(tools, { nspawn: "10.224", gvisor: "10.206" }))(
  "workspaces: jj workspaces, git worktrees, mounts ($runtime runtime)",
  ({ runtime, prefix, runs }) => {
    if (!runs || !isRoot()) return void it.skip("needs root and the runtime's tools");
    const host = new TestHost(prefix, "nobody", "", "", { runtime });
    const repos = join(host.dir, "repos");
    const home = join(host.dir, "home");
    const identity = ["--git-user", "Agent Smith", "--git-email", "agent@example.com"];

    /** Runs git or jj on the host as the repositories' owner. */
    const as = async (program: "git" | "jj", args: string[]): Promise<string> => {
      const result = await execa(program, args, {
        uid: agentUid,
        gid: agentUid,
        env: {
          HOME: home,
          PATH: "/usr/local/bin:/usr/bin:/bin",
          JJ_USER: "Owner",
          JJ_EMAIL: "owner@example.com",
          GIT_AUTHOR_NAME: "Owner",
          GIT_AUTHOR_EMAIL: "owner@example.com",
          GIT_COMMITTER_NAME: "Owner",
          GIT_COMMITTER_EMAIL: "owner@example.com",
        },
        extendEnv: false,
        cwd: "/",
      });
      return result.stdout;
    };
    const gitRepo = async (name: string): Promise<string> => {
      const repo = join(repos, name);
      mkdirSync(repo, { recursive: true });
      writeFileSync(join(repo, "README.md"), "hello\n");
      writeFileSync(join(repo, ".envrc"), "use nix\n");
      await execa("chown", ["-R", `${agentUid}:${agentUid}`, repo]);
      await as("git", ["-C", repo, "init", "-q", "-b", "main"]);
      await as("git", ["-C", repo, "add", "-A"]);
      await as("git", ["-C", repo, "commit", "-q", "-m", "initial"]);
      return repo;
    };

    const jjRepo = async (name: string): Promise<string> => {
      const repo = join(repos, name);
      mkdirSync(repo);
      await execa("chown", [`${agentUid}:${agentUid}`, repo]);
      await as("jj", ["git", "init", "--no-colocate", repo]);
      return repo;
    };

    beforeAll(() => {
      // The configured user reaches its workspaces under the state directory, as on a real host.
      chmodSync(host.dir, 0o711);
      mkdirSync(repos, { recursive: true });
      mkdirSync(home, { recursive: true });
      const data = join(host.dir, "data");
      mkdirSync(data);
      writeFileSync(join(data, "table.csv"), "a,b\n");
      writeFileSync(
        host.config,
        readFileSync(host.config, "utf8") + mounts.replaceAll("DATA", data).replace("RUNTIME", runtime),
      );
      return execa("chown", ["-R", `${agentUid}:${agentUid}`, repos, home, data]).then(() => undefined);
    });
    afterAll(() => host.cleanup());

    it("gives each sandbox its own git worktree on branch forage-NAME: both commit in parallel and the host repo has both", async () => {
      const repo = await gitRepo("parallel-git");
      const ups = await Promise.all(
        ["gw1", "gw2"].map((name) => host.run(["up", name, "-t", "basic", "-r", repo, ...identity])),
      );
      expect(ups.map((up) => up.exitCode)).toEqual([0, 0]);
      expect(JSON.parse((await host.run(["status", "gw1", "--json"])).stdout)).toMatchObject({
        workspaceMode: "git-worktree",
        workspaceVcs: "forage-gw1",
      });
      await Promise.all(
        ["gw1", "gw2"].map((name) =>
          host.sh(
            name,
            `echo ${name} > ${name}.txt && git add ${name}.txt && git commit -q -m "work from ${name}" && git status --short | wc -l`,
          ),
        ),
      );
      expect(await host.sh("gw1", "git log --format=%s -2; git rev-parse --abbrev-ref HEAD")).toBe(
        "work from gw1\ninitial\nforage-gw1\n",
      );
      expect(await as("git", ["-C", repo, "log", "--format=%s %an", "forage-gw1", "-1"])).toBe(
        "work from gw1 Agent Smith",
      );
      expect(await as("git", ["-C", repo, "log", "--format=%s", "forage-gw2", "-1"])).toBe("work from gw2");
    });

    it("keeps a branch with unmerged commits on down, says so, and removes the worktree; a merged branch goes", async () => {
      const repo = join(repos, "parallel-git");
      const down = await host.run(["down", "gw1"]);
      expect(down.exitCode).toBe(0);
      expect(down.stderr).toContain("branch forage-gw1 in");
      expect(down.stderr).toContain("not merged anywhere: kept");
      await as("git", ["-C", repo, "merge", "-q", "--ff-only", "forage-gw2"]).catch(() =>
        as("git", ["-C", repo, "branch", "-f", "main", "forage-gw2"]),
      );
      expect((await host.run(["down", "gw2"])).stderr).toBe("");
      expect(await as("git", ["-C", repo, "branch", "--format=%(refname:short)"])).toBe("forage-gw1\nmain");
      expect((await as("git", ["-C", repo, "worktree", "list"])).split("\n")).toHaveLength(1);
    });

    it("gives each sandbox its own jj workspace: jj works inside, and the host repo sees both sandboxes' changes", async () => {
      const repo = await jjRepo("parallel-jj");
      writeFileSync(join(repo, "base.txt"), "base\n");
      await as("jj", ["-R", repo, "commit", "-m", "base"]);
      const ups = await Promise.all(
        ["jj1", "jj2"].map((name) => host.run(["up", name, "-t", "basic", "-r", repo, ...identity])),
      );
      expect(ups.map((up) => [up.exitCode, up.stderr])).toEqual([
        [0, ""],
        [0, ""],
      ]);
      const change = (name: string) =>
        host.sh(name, `echo ${name} > ${name}.txt && jj describe -m "change from ${name}" && jj --quiet new`);
      // Under gVisor two sandboxes' jj may not run at once: jj's lock files race there (see the
      // README's gvisor section, "Shared folders"), so they take turns.
      if (runtime === "gvisor") for (const name of ["jj1", "jj2"]) await change(name);
      else await Promise.all(["jj1", "jj2"].map(change));
      const store = `${repo}/.jj/repo`;
      expect(
        await host.sh(
          "jj1",
          `for f in ${store}/config.toml ${store}/store/git_target .jj/repo; do (echo x >> "$f") 2>&1 | grep -c Read-only; done`,
        ),
      ).toBe("1\n1\n1\n");
      expect(
        await host.sh(
          "jj1",
          `jj log --no-graph -r '@-' -T 'description ++ author.name() ++ "\\n"'; jj status | head -1`,
        ),
      ).toBe("change from jj1\nAgent Smith\nThe working copy has no changes.\n");
      const log = await as("jj", [
        "-R",
        repo,
        "log",
        "--no-graph",
        "-r",
        "all()",
        "-T",
        'description.first_line() ++ "\\n"',
      ]);
      expect(log).toContain("change from jj1");
      expect(log).toContain("change from jj2");
      expect(await as("jj", ["-R", repo, "workspace", "list", "-T", 'name ++ "\\n"'])).toBe("default\njj1\njj2");
    });

    it("makes the repository forget the jj workspace on down", async () => {
      expect((await host.run(["down", "jj1"])).exitCode).toBe(0);
      expect((await host.run(["down", "jj2"])).exitCode).toBe(0);
      expect(await as("jj", ["-R", join(repos, "parallel-jj"), "workspace", "list", "-T", 'name ++ "\\n"'])).toBe(
        "default",
      );
    });

    it("gives a sandbox a jj workspace of a repository jj made as it does by default (colocated with git), without a git worktree", async () => {
      // jj 0.46 makes a git worktree for a new workspace of a colocated repository, with an option
      // git before 2.42 refuses (Debian 12 has 2.39): up failed for every such repository.
      const repo = join(repos, "colocated-jj");
      mkdirSync(repo);
      await execa("chown", [`${agentUid}:${agentUid}`, repo]);
      await as("jj", ["git", "init", repo]);
      expect(existsSync(join(repo, ".git"))).toBe(true);
      writeFileSync(join(repo, "base.txt"), "base\n");
      await as("jj", ["-R", repo, "commit", "-m", "base"]);
      const up = await host.run(["up", "jjco", "-t", "basic", "-r", repo, ...identity]);
      expect([up.exitCode, up.stderr]).toEqual([0, ""]);
      expect(
        await host.sh(
          "jjco",
          "cat base.txt; test -f .git && echo git-worktree || echo no-git-worktree; jj status | head -1",
        ),
      ).toBe("base\nno-git-worktree\nThe working copy has no changes.\n");
      expect(await as("git", ["-C", repo, "worktree", "list", "--porcelain"])).not.toContain("jjco");
      expect((await host.run(["down", "jjco"])).exitCode).toBe(0);
      expect(await as("jj", ["-R", repo, "workspace", "list", "-T", 'name ++ "\\n"'])).toBe("default");
    });

    it("keeps git hooks and config, .envrc, .forage and a Forage config read-only to the agent in a writable workspace", async () => {
      const repo = await gitRepo("protected");
      mkdirSync(join(repo, ".forage"));
      // The repository protects one more path of its own.
      writeFileSync(join(repo, ".forage/protected"), "# deploy scripts run on the host\ndeploy.sh\n../escape\n");
      writeFileSync(join(repo, "deploy.sh"), "echo deploy\n");
      // The user's own Forage config in the workspace: `sudo forage-ctl` run there loads it.
      writeFileSync(join(repo, "forage.config.ts"), "export default {};\n");
      await execa("chown", [
        "-R",
        `${agentUid}:${agentUid}`,
        join(repo, ".forage"),
        join(repo, "deploy.sh"),
        join(repo, "forage.config.ts"),
      ]);
      expect((await host.run(["up", "prot", "-t", "basic", "-w", repo])).exitCode).toBe(0);
      const attempt = (path: string): Promise<string> =>
        host.sh("prot", `(echo x >> ${path}) 2>&1 | grep -c 'Read-only file system' || true`);
      for (const path of [
        ".git/config",
        ".git/hooks/pre-commit",
        ".envrc",
        ".forage/init",
        "deploy.sh",
        "forage.config.ts",
      ])
        expect(await attempt(path)).toBe("1\n");
      expect(await attempt("README.md")).toBe("0\n");
      // .git cannot be moved aside to put another config in its place.
      expect(await host.sh("prot", "mv .git .git-aside 2>&1 | grep -c 'busy' || true")).toBe("1\n");
      expect((await host.run(["down", "prot"])).exitCode).toBe(0);
      expect(readFileSync(join(repo, ".git/config"), "utf8")).not.toContain("x\n");
    });

    it("protects the shared git directory of a worktree too, and lets a template lift a protection", async () => {
      const repo = await gitRepo("lenient");
      expect((await host.run(["up", "len", "-t", "lenient", "-r", repo, ...identity])).exitCode).toBe(0);
      expect(
        await host.sh(
          "len",
          "(echo x >> \"$(git rev-parse --git-common-dir)/config\") 2>&1 | grep -c 'Read-only' || true",
        ),
      ).toBe("1\n");
      expect(await host.sh("len", "echo 'use flake' > .envrc && cat .envrc")).toBe("use flake\n");
      // Nothing the agent writes can point the user's git elsewhere: the store's root and the
      // worktree's pointer file are read-only (commits still work: objects and refs are writable).
      const pointers =
        'common=$(git rev-parse --git-common-dir); for f in "$common/commondir" "$common/info/x" .git; do (echo x >> "$f") 2>&1 | grep -c Read-only; done; git commit -q --allow-empty -m ok && echo committed';
      expect(await host.sh("len", pointers)).toBe("1\n1\n1\ncommitted\n");
      expect((await host.run(["down", "len"])).exitCode).toBe(0);
    });

    it("refuses a directory that is no repository, and an existing branch, with exit 7 and nothing left behind", async () => {
      const plain = join(repos, "plain");
      mkdirSync(plain);
      await execa("chown", [`${agentUid}:${agentUid}`, plain]);
      const notRepo = await host.run(["up", "nr", "-t", "basic", "-r", plain]);
      expect(notRepo.exitCode).toBe(7);
      expect(notRepo.stderr).toContain("is neither a jj repository (.jj) nor a git repository (.git): use --direct");
      expect((await host.run(["up", "nr", "-t", "basic", "-r", plain, "--direct"])).exitCode).toBe(0);
      expect((await host.run(["down", "nr"])).exitCode).toBe(0);
      const repo = join(repos, "parallel-git");
      const taken = await host.run(["up", "gw1", "-t", "basic", "-r", repo]);
      expect(taken.exitCode).toBe(7);
      expect(taken.stderr).toContain("a branch named 'forage-gw1' already exists");
      expect((await host.run(["status", "gw1"])).exitCode).toBe(2);
      expect(existsSync(join(host.env.FORAGE_STATE_DIR ?? "", "workspaces", "gw1"))).toBe(false);
    });

    it("mounts a template's repositories (default and -r NAME=PATH) and host paths where the template says", async () => {
      const code = await gitRepo("code");
      const docs = await gitRepo("docs");
      const up = await host.run(["up", "ok", "-t", "composed-ok", "-r", code, "-r", `docs=${docs}`, ...identity]);
      expect([up.exitCode, up.stderr]).toEqual([0, ""]);
      const inside =
        "git -C /workspace rev-parse --abbrev-ref HEAD; git -C /src/code rev-parse --abbrev-ref HEAD; git -C /src/docs rev-parse --abbrev-ref HEAD; cat /data/table.csv; (touch /data/x) 2>&1 | grep -c Read-only";
      expect(await host.sh("ok", inside)).toBe("forage-ok\nforage-ok-code\nforage-ok-docs\na,b\n1\n");
      await host.sh("ok", "cd /src/docs && echo more >> README.md && git commit -qam 'docs from ok'");
      expect(await as("git", ["-C", docs, "log", "--format=%s", "-1", "forage-ok-docs"])).toBe("docs from ok");
      expect((await host.run(["down", "ok"])).exitCode).toBe(0);
      expect((await as("git", ["-C", code, "worktree", "list"])).split("\n")).toHaveLength(1);
      expect(await as("git", ["-C", code, "branch", "--format=%(refname:short)"])).toBe("main");
    });

    it("snapshots a git worktree (untracked files too) and restores its files, history untouched", async () => {
      const repo = await gitRepo("snap-git");
      expect((await host.run(["up", "sg", "-t", "basic", "-r", repo])).exitCode).toBe(0);
      await host.sh("sg", "echo v1 > notes.txt && echo changed > README.md");
      expect((await host.run(["snapshot", "create", "sg", "s1"])).exitCode).toBe(0);
      await host.sh("sg", "echo v2 > notes.txt && rm README.md");
      const restored = await host.run(["snapshot", "restore", "sg", "s1"]);
      expect(restored.exitCode, restored.stderr).toBe(0);
      expect(await host.sh("sg", "cat notes.txt README.md; git log --format=%s; git status --short")).toBe(
        "v1\nchanged\ninitial\n M README.md\n?? notes.txt\n",
      );
      const list = JSON.parse((await host.run(["snapshot", "list", "sg", "--json"])).stdout) as { name: string }[];
      expect(list.map((s) => s.name)).toEqual(["s1"]);
      expect((await host.run(["snapshot", "create", "sg", "s1"])).stderr).toContain(
        'snapshot "s1" of sg exists already',
      );
      expect((await host.run(["down", "sg"])).exitCode).toBe(0);
      expect(await as("git", ["-C", repo, "for-each-ref", "refs/forage/"])).toBe("");
    });

    it("snapshots a jj workspace's @ and restores it; down deletes the snapshot bookmarks", async () => {
      const repo = await jjRepo("snap-jj");
      expect((await host.run(["up", "sj", "-t", "basic", "-r", repo, ...identity])).exitCode).toBe(0);
      await host.sh("sj", "echo v1 > notes.txt");
      expect((await host.run(["snapshot", "create", "sj", "before"])).exitCode).toBe(0);
      await host.sh("sj", "echo v2 > notes.txt && echo extra > extra.txt");
      expect((await host.run(["snapshot", "restore", "sj", "before"])).exitCode).toBe(0);
      // (ls names files only: missing protected paths show as empty stand-in directories.)
      expect(await host.sh("sj", "cat notes.txt; ls -p | grep -v /")).toBe("v1\nnotes.txt\n");
      expect(await as("jj", ["-R", repo, "bookmark", "list", "-T", 'name ++ "\\n"'])).toBe("forage-snapshot/sj/before");
      expect((await host.run(["down", "sj"])).exitCode).toBe(0);
      expect(await as("jj", ["-R", repo, "bookmark", "list", "-T", 'name ++ "\\n"'])).toBe("");
    });

    it("makes the workspace and the repository's shared directory read-only with readOnlyWorkspace", async () => {
      const repo = await gitRepo("read-only");
      expect((await host.run(["up", "ro", "-t", "readonly", "-r", repo])).exitCode).toBe(0);
      const attempts =
        "(touch new.txt) 2>&1 | grep -c Read-only; (git commit -q --allow-empty -m nope) 2>&1 | grep -c 'Read-only'; git log --format=%s";
      expect(await host.sh("ro", attempts)).toBe("1\n1\ninitial\n");
      expect((await host.run(["down", "ro"])).exitCode).toBe(0);
    });

    it("mounts the beads branch as its own jj workspace with useBeads", async () => {
      const repo = await jjRepo("beads");
      writeFileSync(join(repo, "issues.jsonl"), '{"id":"bd-1"}\n');
      await as("jj", ["-R", repo, "commit", "-m", "beads database"]);
      await as("jj", ["-R", repo, "bookmark", "create", "beads-sync", "-r", "@-"]);
      expect((await host.run(["up", "bd", "-t", "beads", "-r", repo])).exitCode).toBe(0);
      expect(
        await host.sh(
          "bd",
          "cat /workspace/.beads/issues.jsonl; cd /workspace/.beads && jj log --no-graph -r '@-' -T 'bookmarks ++ \"\\n\"'",
        ),
      ).toBe('{"id":"bd-1"}\nbeads-sync\n');
      expect(await as("jj", ["-R", repo, "workspace", "list", "-T", 'name ++ "\\n"'])).toBe("bd\nbd-beads\ndefault");
      expect((await host.run(["down", "bd"])).exitCode).toBe(0);
      expect(await as("jj", ["-R", repo, "workspace", "list", "-T", 'name ++ "\\n"'])).toBe("default");
    });

    it("reports a workspace directory no sandbox owns to gc, and removes it with --force", async () => {
      const ghost = join(host.env.FORAGE_STATE_DIR ?? "", "workspaces", "ghost", "_workspace");
      mkdirSync(ghost, { recursive: true });
      const found = JSON.parse((await host.run(["gc", "--json"])).stdout) as {
        orphans: { kind: string; name: string }[];
      };
      expect(found.orphans).toEqual([expect.objectContaining({ kind: "workspace", name: "ghost" })]);
      expect((await host.run(["gc", "--force"])).exitCode).toBe(0);
      expect(existsSync(ghost)).toBe(false);
    });

    it("binds an agent's hostConfigDir into the sandbox (read-only if asked), and warns about a missing one", async () => {
      const up = await host.run(["up", "cfg", "-t", "configured", "-w", host.workspace("cfg")]);
      expect(up.exitCode).toBe(0);
      expect(up.stderr).toContain(
        "agent other: /nonexistent/forage-config (hostConfigDir) does not exist on the host; it is not mounted",
      );
      expect(
        await host.sh("cfg", "cat /home/agent/data/table.csv; (touch /home/agent/data/x) 2>&1 | grep -c Read-only"),
      ).toBe("a,b\n1\n");
      expect((await host.run(["down", "cfg"])).exitCode).toBe(0);
    });

    it("refuses snapshots of a directory mounted as is", async () => {
      expect((await host.run(["up", "dir", "-t", "basic", "-w", host.workspace("dir")])).exitCode).toBe(0);
      const refused = await host.run(["snapshot", "create", "dir"]);
      expect(refused.exitCode).toBe(64);
      expect(refused.stderr).toContain("snapshots need a jj workspace or git worktree");
      expect((await host.run(["down", "dir"])).exitCode).toBe(0);
    });

    it("mounts a template's repositories and host paths, and rolls back the ones made when a later mount fails", async () => {
      const repo = await gitRepo("composed");
      const failed = await host.run(["up", "cmp", "-t", "composed", "-r", repo]);
      expect(failed.exitCode).toBe(64);
      expect(failed.stderr).toContain("/nonexistent/forage-test is not an existing directory");
      expect(await as("git", ["-C", repo, "branch", "--format=%(refname:short)"])).toBe("main");
      expect((await as("git", ["-C", repo, "worktree", "list"])).split("\n")).toHaveLength(1);
      expect(existsSync(join(host.env.FORAGE_STATE_DIR ?? "", "workspaces", "cmp"))).toBe(false);
    });
  },
);

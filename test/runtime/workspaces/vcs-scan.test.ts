import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { scanWorkspace } from "../../../runtime/workspaces/vcs-scan.js";
import { neutralSettings } from "../../../runtime/workspaces/safe-git.js";
import { toolsAvailable } from "../../support/tools.js";

const tools = toolsAvailable("git");
const gitEnv = {
  HOME: "/nonexistent",
  PATH: "/usr/local/bin:/usr/bin:/bin",
  GIT_AUTHOR_NAME: "A",
  GIT_AUTHOR_EMAIL: "a@x",
  GIT_COMMITTER_NAME: "A",
  GIT_COMMITTER_EMAIL: "a@x",
};
const git = (cwd: string, ...args: string[]) => execa("git", args, { cwd, env: gitEnv, extendEnv: false });
const runner = { program: "/usr/bin/git", home: "/nonexistent", env: gitEnv };

describe.skipIf(!tools.run)("what in a workspace's repositories can run a program", () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const repo = async (): Promise<string> => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "forage-vcs-scan-")));
    made.push(dir);
    await git(dir, "init", "-q", "-b", "main");
    writeFileSync(join(dir, "README.md"), "hi\n");
    await git(dir, "add", "-A");
    await git(dir, "commit", "-q", "-m", "initial");
    return dir;
  };

  it("finds nothing in a plain repository (git's own sample hooks are no hooks)", async () => {
    const scan = await scanWorkspace(await repo(), runner);
    expect(scan).toMatchObject({ repositories: [{ path: ".", vcs: "git" }], findings: [], complete: true });
  });

  it("finds a nested repository's fsmonitor, a hook, a shell alias (not a plain one), and what an include brings", async () => {
    const top = await repo();
    mkdirSync(join(top, "nested"));
    await git(join(top, "nested"), "init", "-q");
    await git(join(top, "nested"), "config", "core.fsmonitor", "touch ran #");
    await git(join(top, "nested"), "config", "alias.st", "status");
    await git(join(top, "nested"), "config", "alias.x", "!sh -c id");
    await git(top, "config", "include.path", "../../agent.inc");
    mkdirSync(join(top, "deep/dir"), { recursive: true });
    writeFileSync(join(top, "deep/dir/agent.inc"), "");
    await git(top, "config", "include.path", "../deep/dir/agent.inc");
    writeFileSync(join(top, "deep/dir/agent.inc"), '[diff "evil"]\n\ttextconv = sh -c id\n');
    writeFileSync(join(top, ".git/hooks/pre-commit"), "#!/bin/sh\nid\n");
    chmodSync(join(top, ".git/hooks/pre-commit"), 0o755);
    const scan = await scanWorkspace(top, runner);
    const found = scan.findings.map((finding) => [finding.repository, finding.key, finding.value, finding.file]);
    expect(found).toEqual(
      expect.arrayContaining([
        ["nested", "core.fsmonitor", "touch ran #", "nested/.git/config"],
        ["nested", "alias.x", "!sh -c id", "nested/.git/config"],
        [".", "include.path", "../deep/dir/agent.inc", ".git/config"],
        [".", "diff.evil.textconv", "sh -c id", "deep/dir/agent.inc"],
        [".", "hook pre-commit", null, ".git/hooks/pre-commit"],
      ]),
    );
    expect(found.map(([, key]) => key)).not.toContain("alias.st");
    // What forage-ctl git gives instead: fsmonitor off, the textconv a pass-through, the alias emptied.
    expect(neutralSettings(scan, [])).toEqual(
      expect.arrayContaining([
        ["core.fsmonitor", "false"],
        ["core.hooksPath", "/dev/null"],
        ["diff.evil.textconv", "cat"],
        ["alias.x", ""],
      ]),
    );
  });

  it("finds a submodule's config in its git directory, a worktree's config.worktree, and a jj repository's adopted config", async () => {
    const top = await repo();
    const sub = await repo();
    await git(top, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub");
    await git(join(top, "sub"), "config", "core.pager", "sh -c id");
    const tree = join(top, "..", `${top.split("/").pop() ?? ""}-wt`);
    made.push(tree);
    await git(top, "worktree", "add", "-q", tree);
    await git(tree, "config", "extensions.worktreeConfig", "true");
    await git(tree, "config", "--worktree", "core.sshCommand", "sh -c id");
    mkdirSync(join(top, "jjrepo/.jj/repo"), { recursive: true });
    writeFileSync(join(top, "jjrepo/.jj/repo/config.toml"), '[ui]\npager = "sh -c id"\n[user]\nname = "A"\n');
    const found = (await scanWorkspace(top, runner)).findings.map((finding) => [
      finding.repository,
      finding.vcs,
      finding.key,
    ]);
    expect(found).toEqual(
      expect.arrayContaining([
        ["sub", "git", "core.pager"],
        [".", "git", "core.sshcommand"],
        ["jjrepo", "jj", "(file)"],
        ["jjrepo", "jj", "ui.pager"],
      ]),
    );
    expect(found.map(([, , key]) => key)).not.toContain("user.name");
  });

  it("reports a config file git cannot read, rather than passing it", async () => {
    const top = await repo();
    mkdirSync(join(top, "broken/.git"), { recursive: true });
    writeFileSync(join(top, "broken/.git/config"), "[core\nfsmonitor = x\n");
    writeFileSync(join(top, "broken/.git/HEAD"), "ref: refs/heads/main\n");
    const found = (await scanWorkspace(top, runner)).findings;
    expect(found).toContainEqual(
      expect.objectContaining({ repository: "broken", key: "(unreadable)", file: "broken/.git/config" }),
    );
  });
});

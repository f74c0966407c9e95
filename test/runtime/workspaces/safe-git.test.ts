import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { elfInterpreter, executables, runSafeGit } from "../../../runtime/workspaces/safe-git.js";
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
const runner = { program: "/usr/bin/git", home: "/nonexistent", env: gitEnv };

describe.skipIf(!tools.run)("the host's git with nothing of the workspace's run", () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  /** A repository whose config runs `touch ran` from its fsmonitor, and a changed file. */
  const planted = async (): Promise<string> => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "forage-safe-git-")));
    made.push(dir);
    const git = (...args: string[]) => execa("git", args, { cwd: dir, env: gitEnv, extendEnv: false });
    await git("init", "-q", "-b", "main");
    writeFileSync(join(dir, "a.txt"), "one\n");
    await git("add", "-A");
    await git("commit", "-q", "-m", "one");
    await git("config", "core.fsmonitor", "touch ran #");
    writeFileSync(join(dir, "a.txt"), "two\n");
    return dir;
  };

  it("finds the ELF interpreter git starts through (Landlock must let it execute)", async () => {
    const interpreter = await elfInterpreter(realpathSync("/usr/bin/git"));
    expect(interpreter).toMatch(/^\/.*ld-linux.*\.so\.\d$/);
    expect(await executables(runner, [])).toEqual(
      expect.arrayContaining([
        realpathSync("/usr/bin/git"),
        realpathSync(interpreter ?? ""),
        realpathSync("/usr/bin/cat"),
      ]),
    );
  });

  it("control: plain git status runs the repository's fsmonitor", async () => {
    const dir = await planted();
    await execa("git", ["status", "--short"], { cwd: dir, env: gitEnv, extendEnv: false, reject: false });
    expect(existsSync(join(dir, "ran"))).toBe(true);
  });

  it("under Landlock alone (no setting taken away: one the look missed, or set after it), the fsmonitor fails to start and status still answers", async () => {
    const dir = await planted();
    const run = await runSafeGit(runner, dir, ["status", "--short"], [], await executables(runner, []));
    expect(run).toEqual({ code: 0, landlock: true });
    expect(existsSync(join(dir, "ran"))).toBe(false);
  });
});

import { lstat, realpath } from "node:fs/promises";
import { SandboxError } from "../core/errors.js";
import { findExecutable } from "../core/find-executable.js";
import { lookupHostUserById } from "../core/host-user.js";
import { systemProgram, userCommandPath } from "../core/user-command-path.js";
import { ownConfig, type GitRunner } from "./git-config-file.js";
import { executables, neutralSettings, runSafeGit } from "./safe-git.js";
import { scanWorkspace, type VcsScan } from "./vcs-scan.js";

/**
 * How git is run on `folder`: as whoever runs forage-ctl, or, for root, as the folder's owner
 * (root never runs git where an agent wrote; a folder root owns is refused), with that user's
 * home and PATH, and git found where root finds system programs.
 */
export async function gitRunnerFor(folder: string): Promise<GitRunner> {
  const isRoot = process.getuid?.() === 0;
  if (!isRoot) {
    const env = Object.fromEntries(
      Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    const program = await findExecutable(["git"], (env.PATH ?? "/usr/bin:/bin").split(":"));
    if (program === undefined) throw new SandboxError("git is not installed (not found on PATH)", "vcs");
    return { program, home: env.HOME ?? "/", env };
  }
  const info = await lstat(folder);
  if (info.uid === 0)
    throw new SandboxError(
      `${folder} belongs to root: run this as the user whose workspace it is, never as root there`,
      "usage",
    );
  const owner = await lookupHostUserById(info.uid);
  const home = owner?.home ?? "/";
  const env: Record<string, string> = {
    HOME: home,
    PATH: userCommandPath({ home, name: owner?.name }),
    ...(owner === undefined ? {} : { USER: owner.name, LOGNAME: owner.name }),
  };
  for (const name of ["TERM", "LANG", "LC_ALL", "COLORTERM", "NO_COLOR"])
    if (process.env[name] !== undefined) env[name] = process.env[name] ?? "";
  return { program: await systemProgram("git"), home, env, uid: info.uid, gid: info.gid };
}

/** A workspace folder's real path; refused unless it is a directory. */
export async function workspaceFolder(path: string): Promise<string> {
  const real = await realpath(path).catch(() => undefined);
  if (real === undefined || (await lstat(real)).isDirectory() !== true)
    throw new SandboxError(`${path} is not a directory`, "usage");
  return real;
}

/** Every git and jj setting in `folder` that can run a program (see scanWorkspace). */
export async function checkWorkspace(folder: string): Promise<VcsScan> {
  return scanWorkspace(folder, await gitRunnerFor(folder));
}

/**
 * Runs the host's git in `folder` with everything the workspace could make it run taken away
 * (safe-git.ts), looked at afresh just before: what the agent set since an earlier vcs-check
 * counts too. Resolves with git's exit status and notes for the user (stderr).
 */
export async function runWorkspaceGit(
  folder: string,
  args: readonly string[],
): Promise<{ code: number; notes: string[] }> {
  const git = await gitRunnerFor(folder);
  const scan = await scanWorkspace(folder, git);
  const settings = neutralSettings(scan, await ownConfig(git));
  const run = await runSafeGit(git, folder, args, settings, await executables(git, settings));
  const notes: string[] = [];
  if (!run.landlock)
    notes.push(
      "this kernel has no Landlock: git ran with the settings found taken away, but a setting the agent adds while it runs is not stopped (stop the sandbox first)",
    );
  if (!scan.complete)
    notes.push(
      `the look through ${folder} stopped at its limits: settings deeper in may not have been taken away (Landlock still keeps git to its own programs)`,
    );
  return { code: run.code, notes };
}

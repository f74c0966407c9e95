import { runCommand, type RunResult } from "../../core/run-command.js";
import { systemProgram, userCommandPath } from "../../core/user-command-path.js";

/** The host user a gate acts for: pushes go upstream as them, with their own configuration. */
export interface GateUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/**
 * Runs git as the user (setpriv: their uid, gid and supplementary groups from the host's group
 * database), never as root: their HOME, so their own ~/.gitconfig, credential helpers and SSH keys
 * apply. No shell; a small fixed environment plus `env` (a quarantine's object directories).
 */
export async function runUserGit(
  user: GateUser,
  args: readonly string[],
  env: Record<string, string> = {},
  timeoutMs = 120_000,
): Promise<RunResult> {
  const argv = [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--init-groups", "--", "git", ...args];
  // setpriv is root's to find (system directories only); git is found by setpriv as the user.
  return runCommand(await systemProgram("setpriv"), argv, {
    env: { ...userGitEnvironment(user), ...env },
    cwd: "/",
    reject: false,
    timeoutMs,
    maxBuffer: 4 * 1024 * 1024,
  });
}

/** The environment git runs in as the user: their HOME and PATH (their git, credential helpers, ssh), no prompts. */
export function userGitEnvironment(user: GateUser): Record<string, string> {
  return {
    HOME: user.home,
    USER: user.name,
    LOGNAME: user.name,
    PATH: userCommandPath(user),
    LANG: "C.UTF-8",
    GIT_TERMINAL_PROMPT: "0",
  };
}

/** What git said last (a few lines), for a message. */
export function lastWords(result: RunResult): string {
  const said = `${result.stderr}`.trim().split("\n").slice(-3).join("; ");
  return said === "" ? `git exited with ${String(result.exitCode ?? result.signal)}` : said;
}

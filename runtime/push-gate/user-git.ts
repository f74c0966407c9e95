import { runCommand, type RunResult } from "../core/run-command.js";

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
export function runUserGit(user: GateUser, args: readonly string[], env: Record<string, string> = {}, timeoutMs = 120_000): Promise<RunResult> {
  const argv = [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--init-groups", "--", "git", ...args];
  return runCommand("setpriv", argv, {
    env: { HOME: user.home, USER: user.name, LOGNAME: user.name, PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8", GIT_TERMINAL_PROMPT: "0", ...env },
    cwd: "/",
    reject: false,
    timeoutMs,
    maxBuffer: 4 * 1024 * 1024,
  });
}

/** What git said last (a few lines), for a message. */
export function lastWords(result: RunResult): string {
  const said = `${result.stderr}`.trim().split("\n").slice(-3).join("; ");
  return said === "" ? `git exited with ${String(result.exitCode ?? result.signal)}` : said;
}

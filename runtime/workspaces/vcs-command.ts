import { runCommand } from "../core/run-command.js";
import { userCommandPath } from "../core/user-command-path.js";
import { SandboxError } from "../core/errors.js";

/** The host user VCS commands run as: workspaces belong to them, never to root. */
export interface RepoOwner {
  uid: number;
  gid: number;
  home: string;
  /** Their account name, for their NixOS per-user profile on the PATH (userCommandPath). */
  name?: string;
}

/**
 * Git options that keep a repository's own configuration from running code on the host while
 * forage-ctl works on it (hooks, fsmonitor): the repository is input, like any other.
 */
const safeGitOptions = ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"];

/**
 * Runs git or jj as the repository's owner with a minimal environment; a failure is a VCS error
 * (exit 7) that says what was being done and what the tool answered.
 */
export async function runVcs(
  owner: RepoOwner,
  program: "git" | "jj",
  args: string[],
  doing: string,
  extraEnv: Record<string, string> = {},
): Promise<string> {
  const result = await runCommand(program, program === "git" ? [...safeGitOptions, ...args] : args, {
    uid: owner.uid,
    gid: owner.gid,
    // Looked up as the owner (the uid is dropped before exec): their git or jj, on NixOS too.
    env: { HOME: owner.home, PATH: userCommandPath(owner), LANG: "C.UTF-8", GIT_TERMINAL_PROMPT: "0", ...extraEnv },
    reject: false,
    timeoutMs: 120_000,
    cwd: "/",
  }).catch((error: Error) => ({ exitCode: 127, stdout: "", stderr: error.message }));
  if (result.exitCode !== 0) {
    const said = String(result.stderr).trim().split("\n").slice(-4).join("\n");
    throw new SandboxError(
      `could not ${doing}: ${program} ${args.find((a) => !a.startsWith("-") && !a.startsWith("/")) ?? ""} exited with ${String(result.exitCode)}${said === "" ? "" : `:\n${said}`}`,
      "vcs",
    );
  }
  return String(result.stdout);
}

import { runCommand, type RunResult } from "../core/run-command.js";

/** How to run the host's git as the workspace's owner: never as root in a directory an agent wrote. */
export interface GitRunner {
  /** The git program (an absolute path). */
  program: string;
  /** The owner's home (`~/` in an include, their global config). */
  home: string;
  env: Record<string, string>;
  /** Set when this process is root: git then runs as the owner. */
  uid?: number;
  gid?: number;
}

/** Runs git with `args` as the runner says; resolves with what it did (never rejects on failure). */
export function runGit(git: GitRunner, args: readonly string[], cwd = "/"): Promise<RunResult> {
  return runCommand(git.program, [...args], {
    cwd,
    env: git.env,
    reject: false,
    ...(git.uid === undefined ? {} : { uid: git.uid, gid: git.gid ?? git.uid }),
  });
}

/** One setting of a config file: its key as git prints it (section and name lower-cased), and its value (null: none given). */
export interface ConfigEntry {
  key: string;
  value: string | null;
}

/**
 * The settings of one config file as git parses it, includes not followed (the caller follows
 * them itself, so it sees every file and every condition): `git config --file F --no-includes
 * --list --null`, which reads the file and runs nothing. Undefined entries and git's complaint
 * when it cannot parse the file.
 */
export async function readGitConfig(
  git: GitRunner,
  file: string,
): Promise<{ ok: true; entries: ConfigEntry[] } | { ok: false; reason: string }> {
  const result = await runGit(git, ["config", "--file", file, "--no-includes", "--list", "--null"]);
  if (result.exitCode !== 0)
    return {
      ok: false,
      reason: result.stderr.trim().split("\n")[0] ?? `git config exited ${result.exitCode ?? "by a signal"}`,
    };
  return { ok: true, entries: parseConfigList(result.stdout) };
}

/**
 * The user's own settings (system, then global, includes followed): what `forage-ctl git` keeps
 * where the workspace sets the same key. Empty where there is no such file.
 */
export async function ownConfig(git: GitRunner): Promise<ConfigEntry[]> {
  const entries: ConfigEntry[] = [];
  for (const scope of ["--system", "--global"]) {
    const result = await runGit(git, ["config", scope, "--includes", "--list", "--null"]);
    if (result.exitCode === 0) entries.push(...parseConfigList(result.stdout));
  }
  return entries;
}

/** `key\nvalue\0` or `key\0` (no value) entries, as `--list --null` prints them. */
function parseConfigList(text: string): ConfigEntry[] {
  return text
    .split("\0")
    .filter((entry) => entry !== "")
    .map((entry) => {
      const newline = entry.indexOf("\n");
      return newline === -1
        ? { key: entry, value: null }
        : { key: entry.slice(0, newline), value: entry.slice(newline + 1) };
    });
}

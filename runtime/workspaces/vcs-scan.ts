import { lstat, readdir, readFile, stat } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { gitRiskOf, jjRiskOf } from "./vcs-risks.js";
import { readGitConfig, type GitRunner } from "./git-config-file.js";
import { tomlKeys } from "./toml-keys.js";

/** A setting in a workspace's repositories that can make git or jj run a program. */
export interface VcsFinding {
  /** The repository's directory, relative to the folder ("." for the folder itself). */
  repository: string;
  vcs: "git" | "jj";
  /** The setting's key; `hook NAME` for a hook, `(file)` for a jj config file jj adopts. */
  key: string;
  /** The value as written (the agent's text: shown escaped), or null. */
  value: string | null;
  /** Where it is set: relative to the folder when inside it. */
  file: string;
  runs: string;
}

/** What a look through a folder found; `complete` is false when the walk stopped at its limits. */
export interface VcsScan {
  folder: string;
  repositories: { path: string; vcs: "git" | "jj" }[];
  findings: VcsFinding[];
  complete: boolean;
}

/** Git directories met on the way and looked at after the walk. */
interface Pending {
  modules: string[];
}

/** The walk's limits: a checkout with more is looked at up to here, and says so. */
const limits = { entries: 500_000, depth: 64 };

/**
 * Every git and jj repository in `folder` (the folder itself, nested ones, submodules and their
 * git directories, a repository's other worktrees, jj repositories and jj's own git store) and
 * every setting in them that can run a program (vcs-risks.ts), read without running anything of
 * theirs: config files through `git config --file --no-includes` (as `git`, the user), includes
 * followed by hand, hooks listed from the hooks directory, jj's config files read as text. Links
 * are not followed into directories (a `.git` that is a link is followed, as git follows it).
 */
export async function scanWorkspace(folder: string, git: GitRunner): Promise<VcsScan> {
  const root = resolve(folder);
  const scan: VcsScan = { folder: root, repositories: [], findings: [], complete: true };
  const seen = new Set<string>();
  const pending: Pending = { modules: [] };
  let entries = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (depth > limits.depth) return void (scan.complete = false);
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (++entries > limits.entries) return void (scan.complete = false);
      const path = join(dir, entry.name);
      if (entry.name === ".git") await gitRepository(scan, root, dir, path, git, seen, pending);
      else if (entry.name === ".jj" && entry.isDirectory()) await jjRepository(scan, root, dir, git, seen, pending);
      else if (entry.isDirectory()) await walk(path, depth + 1);
    }
  };
  await walk(root, 0);
  // Submodules' git directories not reached through a checkout (a checked-out one was, and is named after it).
  for (let i = 0; i < pending.modules.length; i++) {
    const module = pending.modules[i] ?? "";
    if (!seen.has(module)) await gitDirectory(scan, root, shown(root, module), module, git, seen, pending);
  }
  return scan;
}

/** A `.git` at `path` (a directory, a link to one, or a `gitdir:` file): its git directory and what hangs off it. */
async function gitRepository(
  scan: VcsScan,
  root: string,
  dir: string,
  path: string,
  git: GitRunner,
  seen: Set<string>,
  pending: Pending,
): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  let gitDir: string | undefined;
  if (info?.isDirectory() === true) gitDir = path;
  else if (info?.isFile() === true) {
    const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(await readFile(path, "utf8").catch(() => ""));
    if (pointer?.[1] !== undefined) gitDir = resolve(dir, pointer[1]);
  }
  if (gitDir === undefined) return;
  scan.repositories.push({ path: shown(root, dir), vcs: "git" });
  await gitDirectory(scan, root, shown(root, dir), gitDir, git, seen, pending);
}

/** A git directory's config (and its common directory's), hooks, other worktrees' config and submodules' git directories. */
async function gitDirectory(
  scan: VcsScan,
  root: string,
  repository: string,
  gitDir: string,
  git: GitRunner,
  seen: Set<string>,
  pending: Pending,
): Promise<void> {
  if (seen.has(gitDir)) return;
  seen.add(gitDir);
  const common = await commonDir(gitDir);
  const files = [join(common, "config"), join(gitDir, "config.worktree")];
  for (const worktree of await subdirectories(join(common, "worktrees"))) files.push(join(worktree, "config.worktree"));
  for (const file of files) await configFindings(scan, root, repository, file, git, 0);
  await hookFindings(scan, root, repository, join(common, "hooks"));
  for (const module of await subdirectories(join(common, "modules"))) {
    // A submodule's git directory (modules/NAME, and its own modules/ in turn), looked at after the walk.
    if ((await lstat(join(module, "HEAD")).catch(() => undefined)) !== undefined) pending.modules.push(module);
  }
}

async function commonDir(gitDir: string): Promise<string> {
  const pointer = (await readFile(join(gitDir, "commondir"), "utf8").catch(() => "")).trim();
  return pointer === "" ? gitDir : resolve(gitDir, pointer);
}

/** One config file's risky settings, and those of the files it includes (followed by hand, every condition taken as true). */
async function configFindings(
  scan: VcsScan,
  root: string,
  repository: string,
  file: string,
  git: GitRunner,
  depth: number,
): Promise<void> {
  if (depth > 10 || (await stat(file).catch(() => undefined))?.isFile() !== true) return;
  const read = await readGitConfig(git, file);
  const where = shown(root, file);
  if (!read.ok) {
    scan.findings.push({
      repository,
      vcs: "git",
      key: "(unreadable)",
      value: read.reason,
      file: where,
      runs: "nothing while git cannot read it (it stops), but open it as text to see what it holds",
    });
    return;
  }
  for (const { key, value } of read.entries) {
    const risk = gitRiskOf(key, value);
    if (risk === undefined) continue;
    scan.findings.push({ repository, vcs: "git", key, value, file: where, runs: risk.runs });
    if (risk.neutral.kind === "include" && value !== null) {
      const included = value.startsWith("~/") ? join(git.home, value.slice(2)) : resolve(dirname(file), value);
      await configFindings(scan, root, repository, included, git, depth + 1);
    }
  }
}

/** Hooks git would run from `dir`: executable files that are not git's own `.sample`s. */
async function hookFindings(scan: VcsScan, root: string, repository: string, dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    if (entry.name.endsWith(".sample") || entry.isDirectory()) continue;
    const info = await stat(join(dir, entry.name)).catch(() => undefined);
    if (info === undefined || (info.mode & 0o111) === 0) continue;
    scan.findings.push({
      repository,
      vcs: "git",
      key: `hook ${entry.name}`,
      value: null,
      file: shown(root, join(dir, entry.name)),
      runs: "a program on the git command it is named after",
    });
  }
}

/**
 * A jj repository at `dir`: the config files jj adopts as its own when it finds them (in-tree:
 * `.jj/repo/config.toml`, `.jj/workspace-config.toml`) with the risky keys in them, and jj's own
 * git store (a bare repository jj runs git in).
 */
async function jjRepository(
  scan: VcsScan,
  root: string,
  dir: string,
  git: GitRunner,
  seen: Set<string>,
  pending: Pending,
): Promise<void> {
  const repository = shown(root, dir);
  scan.repositories.push({ path: repository, vcs: "jj" });
  const repoInfo = await lstat(join(dir, ".jj/repo")).catch(() => undefined);
  const store =
    repoInfo?.isFile() === true
      ? resolve(dir, ".jj", (await readFile(join(dir, ".jj/repo"), "utf8")).trim())
      : join(dir, ".jj/repo");
  for (const file of [join(store, "config.toml"), join(dir, ".jj/workspace-config.toml")]) {
    const text = await readFile(file, "utf8").catch(() => undefined);
    if (text === undefined) continue;
    const where = shown(root, file);
    scan.findings.push({
      repository,
      vcs: "jj",
      key: "(file)",
      value: null,
      file: where,
      runs: "jj adopts this file as the repository's config: any of its settings",
    });
    for (const { key, value } of tomlKeys(text.slice(0, 1_000_000))) {
      const risk = jjRiskOf(key);
      if (risk !== undefined) scan.findings.push({ repository, vcs: "jj", key, value, file: where, runs: risk.runs });
    }
  }
  const gitStore = join(store, "store/git");
  if ((await lstat(gitStore).catch(() => undefined))?.isDirectory() === true)
    await gitDirectory(scan, root, repository, gitStore, git, seen, pending);
}

async function subdirectories(dir: string): Promise<string[]> {
  return (await readdir(dir, { withFileTypes: true }).catch(() => []))
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(dir, entry.name));
}

/** A path relative to the folder when it lies inside, else as is. */
function shown(root: string, path: string): string {
  const rel = relative(root, path);
  return rel === "" ? "." : rel.startsWith("..") ? path : rel;
}

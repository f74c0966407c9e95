import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { protectedPaths, repoProtectedPaths, vcsPointerFiles } from "./protected-paths.js";

/** What stands in for a guarded path that does not exist when the sandbox starts. */
export type Placeholder = { kind: "directory" } | { kind: "file"; text: string };

/** A workspace-relative path the agent must not create or change, and its stand-in when absent. */
export interface Guard {
  path: string;
  /** null: protected only when present (a stand-in would break the tool that reads it). */
  placeholder: Placeholder | null;
}

const emptyDir: Placeholder = { kind: "directory" };
const emptyFile: Placeholder = { kind: "file", text: "" };

/**
 * What of a `.git` directory moves where git reads its config, hooks or objects from, beyond
 * `.git/config` and `.git/hooks` (protected paths already). Read-only, present or not; the rest
 * of `.git` stays writable because git writes index, HEAD, packed-refs, ORIG_HEAD, FETCH_HEAD,
 * MERGE_*, COMMIT_EDITMSG by writing `X.lock` in `.git` itself and renaming it over `X` (a
 * read-only `.git` breaks add and commit; a file bound on its own cannot be renamed over: EBUSY),
 * and objects/, refs/, logs/ on every commit. A stand-in is always one git reads as "nothing":
 * `commondir` holding "." (git dies on an empty one), an empty `config.worktree` or `alternates`,
 * empty `info/` and `worktrees/`. Not covered: `modules/` (submodules keep working) and
 * `rebase-merge/` (a todo list runs only when the user continues the rebase).
 */
export const gitDirGuards: readonly Guard[] = [
  { path: ".git/commondir", placeholder: { kind: "file", text: ".\n" } },
  { path: ".git/config.worktree", placeholder: emptyFile },
  { path: ".git/info", placeholder: emptyDir },
  { path: ".git/worktrees", placeholder: emptyDir },
  { path: ".git/objects/info/alternates", placeholder: emptyFile },
];

/**
 * A jj workspace's `.jj` as the sandbox sees it: read-only as a whole (and `.jj/repo` when it is
 * the store), with only what jj writes while working bound read-write over it. jj (≥ 0.3x) keeps
 * repo and workspace config outside the repository, found by `.jj/repo/config-id` and
 * `.jj/workspace-config-id`; with no id it adopts a `config.toml` (`.jj/repo/`) or
 * `workspace-config.toml` (`.jj/`) it finds as the user's own, so the agent could hand the user's
 * next jj its aliases, pager or fix tools. Stand-ins do not work here: jj rewrites an id it has no
 * metadata for, and migrates a config file, each by renaming over it (EBUSY on a mount point), so
 * the directories holding them are read-only instead (jj then never writes there).
 */
export const jjLayout = {
  readOnly: [".jj", ".jj/repo"],
  writable: [".jj/working_copy", ".jj/repo/op_heads", ".jj/repo/op_store", ".jj/repo/index", ".jj/repo/store", ".jj/repo/workspace_store", ".jj/repo/submodule_store"],
} as const;

/**
 * Inside jj's writable store, read-only when present: the backend type and git target (a git
 * store's own config can run commands on `jj git fetch`), the internal git store's config and hooks.
 */
export const jjStoreGuards: readonly Guard[] = [".jj/repo/store/type", ".jj/repo/store/git_target", ".jj/repo/store/git/config", ".jj/repo/store/git/hooks"].map((path) => ({
  path,
  placeholder: null,
}));

/**
 * Paths a template or `.forage/protected` names. An absent one gets an empty directory, file or
 * not: git and jj do not see an empty directory (the agent's `git add -A` commits no stand-in),
 * and a directory blocks a file's creation as well as a directory's.
 */
export function listedGuards(paths: readonly string[]): Guard[] {
  return paths.map((path) => ({ path, placeholder: emptyDir }));
}

/** How a guarded path lies in a workspace right now. */
export type GuardState =
  /** It exists (reached without links): bound read-only onto itself. */
  | { state: "present"; path: string }
  /** `path` (the guarded path or its first missing ancestor) is missing: a stand-in goes there. */
  | { state: "absent"; path: string; placeholder: Placeholder }
  /** A link or a file where a directory is needed is on the way, or no stand-in is safe: nothing to do. */
  | { state: "skip" };

/**
 * Where `guard` stands under `root` (a real path): present, absent from some component on (then
 * the stand-in goes at that component, a directory when the guard lies below it), or not
 * applicable. A link on the way is "skip": the agent's view follows it inside the container.
 */
export async function guardState(root: string, guard: Guard): Promise<GuardState> {
  const parts = guard.path.split("/");
  for (const [i, part] of parts.entries()) {
    const rel = [...parts.slice(0, i), part].join("/");
    const info = await lstat(join(root, rel)).catch(() => undefined);
    const last = i === parts.length - 1;
    if (info === undefined) {
      if (guard.placeholder === null) return { state: "skip" };
      return { state: "absent", path: rel, placeholder: last ? guard.placeholder : emptyDir };
    }
    if (info.isSymbolicLink()) return { state: "skip" };
    if (last) return info.isFile() || info.isDirectory() ? { state: "present", path: rel } : { state: "skip" };
    if (!info.isDirectory()) return { state: "skip" };
  }
  return { state: "skip" };
}

/**
 * Everything guarded in one workspace: the template's protected paths (less those it lifts), the
 * repository's own `.forage/protected` list, a `.git` directory's and a jj repository's internals,
 * and the pointer files by which a git worktree (`.git`) or jj workspace (`.jj/repo`) finds its
 * store, when they are files.
 */
export async function workspaceGuards(root: string, unprotected: readonly string[]): Promise<Guard[]> {
  const listed = [...new Set([...protectedPaths.filter((path) => !unprotected.includes(path)), ...(await repoProtectedPaths(root))])];
  const guards = listedGuards(listed);
  if ((await lstat(join(root, ".git")).catch(() => undefined))?.isDirectory() === true) guards.push(...gitDirGuards);
  if ((await lstat(join(root, ".jj/repo")).catch(() => undefined))?.isDirectory() === true) guards.push(...jjStoreGuards);
  for (const pointer of vcsPointerFiles) {
    if ((await lstat(join(root, pointer)).catch(() => undefined))?.isFile() === true) guards.push({ path: pointer, placeholder: null });
  }
  return guards;
}

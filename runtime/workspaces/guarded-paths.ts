import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { Placeholder } from "../core/bind.js";
import { protectedPaths, repoProtectedPaths, vcsPointerFiles } from "./protected-paths.js";

export type { Placeholder } from "../core/bind.js";

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
  writable: [
    ".jj/working_copy",
    ".jj/repo/op_heads",
    ".jj/repo/op_store",
    ".jj/repo/index",
    ".jj/repo/store",
    ".jj/repo/workspace_store",
    ".jj/repo/submodule_store",
  ],
} as const;

/**
 * Inside jj's writable store, read-only when present: the backend type and git target (a git
 * store's own config can run commands on `jj git fetch`), the internal git store's config and hooks.
 */
export const jjStoreGuards: readonly Guard[] = [
  ".jj/repo/store/type",
  ".jj/repo/store/git_target",
  ".jj/repo/store/git/config",
  ".jj/repo/store/git/hooks",
].map((path) => ({
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

/**
 * Everything guarded in one workspace: the template's protected paths (less those it lifts), the
 * repository's own `.forage/protected` list, a `.git` directory's and a jj repository's internals,
 * and the pointer files by which a git worktree (`.git`) or jj workspace (`.jj/repo`) finds its
 * store, when they are files. Each is looked at through links as the host's git and jj see it
 * (`.git -> realgit` is a `.git` directory: its internals are guarded where the link leads).
 */
export async function workspaceGuards(root: string, unprotected: readonly string[]): Promise<Guard[]> {
  const listed = [
    ...new Set([...protectedPaths.filter((path) => !unprotected.includes(path)), ...(await repoProtectedPaths(root))]),
  ];
  const guards = listedGuards(listed);
  if ((await stat(join(root, ".git")).catch(() => undefined))?.isDirectory() === true) guards.push(...gitDirGuards);
  if ((await stat(join(root, ".jj/repo")).catch(() => undefined))?.isDirectory() === true)
    guards.push(...jjStoreGuards);
  for (const pointer of vcsPointerFiles) {
    if ((await stat(join(root, pointer)).catch(() => undefined))?.isFile() === true)
      guards.push({ path: pointer, placeholder: null });
  }
  return guards;
}

import { createHash } from "node:crypto";
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
 * What of a jj workspace moves where jj reads its config or its git store from. jj (≥ 0.3x) keeps
 * repo and workspace config outside the repository, found by `.jj/repo/config-id` and
 * `.jj/workspace-config-id`; with no id, it adopts a `config.toml` (`.jj/repo/`) or
 * `workspace-config.toml` (`.jj/`) it finds as the user's own, so the agent could hand the user's
 * next jj its aliases, pager or fix tools. Absent, both config files get an empty directory and
 * both ids a stand-in id (derived from the workspace's path; jj then reads an empty config of the
 * user's and does not look at the directories, which it would refuse without an id), all removed
 * at stop, so nothing the agent wrote is left for jj to adopt. Also read-only when present: the
 * store's backend type and git target (a git store's own config can run commands on
 * `jj git fetch`), the internal git store's config and hooks.
 */
export function jjGuards(root: string, repoIsHere: boolean): Guard[] {
  const id = (kind: string): Placeholder => ({ kind: "file", text: createHash("sha256").update(`forage\0${kind}\0${root}`).digest("hex").slice(0, 20) });
  const workspace: Guard[] = [{ path: ".jj/workspace-config-id", placeholder: id("workspace") }, { path: ".jj/workspace-config.toml", placeholder: emptyDir }];
  if (!repoIsHere) return workspace;
  const store = [".jj/repo/store/type", ".jj/repo/store/git_target", ".jj/repo/store/git/config", ".jj/repo/store/git/hooks"];
  return [...workspace, { path: ".jj/repo/config-id", placeholder: id("repo") }, ...store.map((path) => ({ path, placeholder: null }))];
}

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
  if ((await lstat(join(root, ".jj")).catch(() => undefined))?.isDirectory() === true) {
    guards.push(...jjGuards(root, (await lstat(join(root, ".jj/repo")).catch(() => undefined))?.isDirectory() === true));
  }
  for (const pointer of vcsPointerFiles) {
    if ((await lstat(join(root, pointer)).catch(() => undefined))?.isFile() === true) guards.push({ path: pointer, placeholder: null });
  }
  return guards;
}

import { lstat, realpath } from "node:fs/promises";
import { dirname, join } from "node:path";
import { runCommand } from "../core/run-command.js";
import type { Bind } from "../core/bind.js";
import { SandboxError } from "../core/errors.js";
import type { RepoOwner } from "./vcs-command.js";

/**
 * A repository's shared store that a sandbox's jj workspace or git worktree writes to: jj's
 * `<repo>/.jj/repo`, or git's common `.git` (with the worktree's own directory in it).
 */
export interface VcsStore {
  kind: "git" | "jj";
  path: string;
  /** git: this worktree's own directory, `<common>/worktrees/<name>`. */
  worktreeDir?: string | undefined;
}

/**
 * What of a store the VCS writes while the agent works; the rest (config, hooks, the pointer
 * files git and jj follow to other directories) stays read-only, so nothing the agent writes can
 * make the user's own git or jj run code.
 */
const writable = {
  git: ["objects", "refs", "logs"],
  jj: ["op_heads", "op_store", "index", "store/extra", "store/git/objects", "store/git/refs"],
} as const;

/**
 * Binds of a store at its own path: read-only as a whole, the parts it has of those written over
 * it read-write. Every path is checked again first (see ownedDirectory).
 */
export async function storeBinds(store: VcsStore, owner: { uid: number }, readOnly: boolean): Promise<Bind[]> {
  // Bound through a descriptor opened without following links (see stageBinds).
  const at = (path: string, ro: boolean): Bind => ({
    source: path,
    target: path,
    readOnly: ro,
    owners: [owner.uid, 0],
  });
  const binds = [at(await ownedDirectory(store.path, owner), true)];
  if (readOnly) return binds;
  for (const part of writable[store.kind]) {
    const path = join(store.path, part);
    if ((await lstat(path).catch(() => undefined))?.isDirectory() === true)
      binds.push(at(await ownedDirectory(path, owner), false));
  }
  if (store.worktreeDir !== undefined) {
    // The worktree's index and HEAD live here; its pointers back to the store stay read-only.
    binds.push(
      at(await ownedDirectory(store.worktreeDir, owner), false),
      at(join(store.worktreeDir, "commondir"), true),
      at(join(store.worktreeDir, "gitdir"), true),
    );
  }
  return binds;
}

/**
 * The stores of a jj workspace of `repo`: `.jj/repo` (a directory: a secondary workspace, whose
 * `.jj/repo` is a file, is refused), and a colocated `.git` when there is one.
 */
export async function jjStores(repo: string, owner: RepoOwner): Promise<VcsStore[]> {
  const real = await realpath(repo);
  const store = join(real, ".jj/repo");
  if ((await lstat(store).catch(() => undefined))?.isDirectory() !== true) {
    throw new SandboxError(
      `${repo} is a secondary jj workspace (its .jj/repo is not the store): give the repository's main workspace`,
      "vcs",
    );
  }
  const stores: VcsStore[] = [{ kind: "jj", path: await ownedDirectory(store, owner) }];
  const colocated = join(real, ".git");
  if ((await lstat(colocated).catch(() => undefined))?.isDirectory() === true)
    stores.push({ kind: "git", path: await ownedDirectory(colocated, owner) });
  await ensureWritableParts(stores, owner);
  return stores;
}

/** The store of a git worktree: the repository's own `.git` directory (nothing elsewhere). */
export async function gitStore(
  repo: string,
  dirs: { common: string; own: string },
  owner: RepoOwner,
): Promise<VcsStore[]> {
  const expected = join(await realpath(repo), ".git");
  const common = await realpath(dirs.common).catch(() => "");
  if (common !== expected)
    throw new SandboxError(
      `${repo} keeps its git directory elsewhere (${dirs.common}): give the repository whose .git directory it is`,
      "vcs",
    );
  const own = await realpath(dirs.own).catch(() => "");
  if (dirname(own) !== join(common, "worktrees"))
    throw new SandboxError(`git put the worktree's directory at an unexpected place (${dirs.own})`, "vcs");
  const worktreeDir = await ownedDirectory(own, owner);
  const stores: VcsStore[] = [{ kind: "git", path: await ownedDirectory(common, owner), worktreeDir }];
  await ensureWritableParts(stores, owner);
  return stores;
}

/**
 * `path` itself (no symbolic link on the way), a directory owned by the user or root: checked when
 * a workspace is made and again each time it is bound, so a path swapped for a link in between
 * is refused rather than followed.
 */
export async function ownedDirectory(path: string, owner: { uid: number }): Promise<string> {
  const real = await realpath(path).catch(() => undefined);
  const info = real === undefined ? undefined : await lstat(real);
  if (real !== path || info?.isDirectory() !== true)
    throw new SandboxError(`${path} is not a directory reached without symbolic links`, "usage");
  if (info.uid !== owner.uid && info.uid !== 0)
    throw new SandboxError(`${path} belongs to uid ${info.uid}, not the sandbox's user (uid ${owner.uid})`, "usage");
  return real;
}

/** git makes logs/ only on first use, which a read-only store would refuse: made now, as the owner. */
async function ensureWritableParts(stores: VcsStore[], owner: RepoOwner): Promise<void> {
  for (const store of stores.filter((s) => s.kind === "git")) {
    await runCommand("mkdir", ["-p", "--", join(store.path, "logs")], {
      uid: owner.uid,
      gid: owner.gid,
      reject: false,
    });
  }
}

import { lstat, rmdir } from "node:fs/promises";
import { runCommand } from "../core/run-command.js";
import { pathUnder } from "../core/names.js";
import type { RuntimePaths } from "../core/paths.js";
import { SandboxError } from "../core/errors.js";
import type { SandboxMetadata, WorkspaceMount } from "../state/metadata.js";
import { forgetGitWorktree } from "./git-worktree.js";
import { forgetJjWorkspace } from "./jj-workspace.js";
import type { RepoOwner } from "./vcs-command.js";
import { dropQuotaSubvolume } from "./disk-quota.js";

/**
 * Undoes one workspace: its managed directory goes (removed as the owner, who owns what is in
 * it; a workspace with a disk limit then has its subvolume and qgroup removed by root, by the
 * id recorded at `up`), then the repository forgets the jj workspace, or prunes the git worktree and deletes its
 * branch when that was made for the sandbox and is merged. A direct mount is never touched.
 * Returns a note for the user, e.g. an unmerged branch kept.
 */
export async function removeWorkspace(mount: WorkspaceMount, owner: RepoOwner): Promise<string | undefined> {
  if (!mount.managed) return undefined;
  await removeAsOwner(mount.hostPath, owner);
  if (mount.quota !== undefined) await dropQuotaSubvolume(mount.quota);
  if (mount.mode === "jj" && mount.sourceRepo !== undefined && mount.vcsName !== undefined)
    await forgetJjWorkspace(owner, mount.sourceRepo, mount.vcsName);
  const gitStore = mount.stores?.find((store) => store.kind === "git")?.path;
  if (mount.mode === "git-worktree" && gitStore !== undefined)
    return forgetGitWorktree(owner, gitStore, mount.ownBranch === true ? (mount.vcsName ?? null) : null);
  return undefined;
}

/**
 * Undoes every workspace of a sandbox (mounts first, then the primary one) and its directory
 * under the state dir. Every workspace is attempted; notes and failures come back together.
 */
export async function removeWorkspaces(
  paths: RuntimePaths,
  metadata: SandboxMetadata,
  owner: RepoOwner,
): Promise<{ notes: string[]; failures: string[] }> {
  const notes: string[] = [];
  const failures: string[] = [];
  const all: WorkspaceMount[] = [...metadata.mounts].reverse();
  for (const mount of [...all, metadata.workspace]) {
    try {
      const note = await removeWorkspace(mount, owner);
      if (note !== undefined) notes.push(note);
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error));
    }
  }
  await removeSandboxDir(pathUnder(paths.workspacesDir, metadata.name), owner).catch((error: Error) =>
    failures.push(error.message),
  );
  return { notes, failures };
}

/**
 * Removes `<state>/workspaces/<sandbox>`: what is in it as the owner (it is theirs), the then
 * empty directory as root (its parent is root's, so it cannot have been swapped).
 */
export async function removeSandboxDir(dir: string, owner: RepoOwner): Promise<void> {
  // A sandbox with only direct mounts never had one.
  if ((await lstat(dir).catch(() => undefined))?.isDirectory() !== true) return;
  const emptied = await runCommand("find", [dir, "-mindepth", "1", "-delete"], {
    uid: owner.uid,
    gid: owner.gid,
    reject: false,
    cwd: "/",
  });
  if (emptied.exitCode !== 0 && !emptied.stderr.includes("No such file"))
    throw new SandboxError(`could not remove ${dir}: ${emptied.stderr.trim()}`, "general");
  await rmdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
}

/**
 * Removes a directory tree the owner owns, as the owner: root never walks a tree the owner (or
 * the sandbox) can change under it, so a link planted in it removes nothing else.
 */
export async function removeAsOwner(path: string, owner: RepoOwner): Promise<void> {
  const result = await runCommand("rm", ["-rf", "--one-file-system", "--", path], {
    uid: owner.uid,
    gid: owner.gid,
    reject: false,
    cwd: "/",
  });
  if (result.exitCode !== 0) throw new SandboxError(`could not remove ${path}: ${result.stderr.trim()}`, "general");
}

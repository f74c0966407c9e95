import { rm } from "node:fs/promises";
import { pathUnder } from "../names.js";
import type { RuntimePaths } from "../paths.js";
import type { SandboxMetadata, WorkspaceMount } from "../state/metadata.js";
import { removeGitWorktree } from "./git-worktree.js";
import { forgetJjWorkspace } from "./jj-workspace.js";
import type { RepoOwner } from "./vcs-command.js";

/**
 * Undoes one workspace: the repository forgets a jj workspace, a git worktree is removed (with
 * its branch when that was made for the sandbox and is merged), and the managed directory goes.
 * A direct mount is never touched. Returns a note for the user, e.g. an unmerged branch kept.
 */
export async function removeWorkspace(mount: WorkspaceMount, owner: RepoOwner): Promise<string | undefined> {
  if (!mount.managed) return undefined;
  let note: string | undefined;
  if (mount.mode === "jj" && mount.sourceRepo !== undefined && mount.vcsName !== undefined) await forgetJjWorkspace(owner, mount.sourceRepo, mount.vcsName);
  if (mount.mode === "git-worktree" && mount.sourceRepo !== undefined) {
    note = await removeGitWorktree(owner, mount.sourceRepo, mount.hostPath, mount.ownBranch === true ? (mount.vcsName ?? null) : null);
  }
  await rm(mount.hostPath, { recursive: true, force: true });
  return note;
}

/**
 * Undoes every workspace of a sandbox (mounts first, then the primary one) and its directory
 * under the state dir. Every workspace is attempted; notes and failures come back together.
 */
export async function removeWorkspaces(paths: RuntimePaths, metadata: SandboxMetadata, owner: RepoOwner): Promise<{ notes: string[]; failures: string[] }> {
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
  await rm(pathUnder(paths.workspacesDir, metadata.name), { recursive: true, force: true });
  return { notes, failures };
}

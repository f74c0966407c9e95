import { chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SandboxError } from "../sandbox/errors.js";
import type { SandboxMetadata, WorkspaceMount } from "../state/metadata.js";
import { runVcs, runVcsWithMessages, type RepoOwner } from "./vcs-command.js";

/** A named capture of a sandbox's working copy. */
export interface Snapshot {
  name: string;
  commit: string;
  createdAt: string;
}

/** Snapshot names: as the reference's VCS names. */
export const snapshotNamePattern = /^[a-zA-Z0-9][a-zA-Z0-9._-]{0,127}$/;

/**
 * Captures the sandbox's working copy — jj: the sandbox workspace's @; git: the worktree's files,
 * untracked ones included — as a commit kept under a name (git ref
 * refs/forage/snapshots/<sandbox>/<name>, jj bookmark forage-snapshot/<sandbox>/<name>).
 * The sandbox's own history and branch are not touched.
 */
export async function createSnapshot(metadata: SandboxMetadata, owner: RepoOwner, name: string): Promise<Snapshot> {
  const workspace = vcsWorkspace(metadata);
  assertName(name);
  if ((await listSnapshots(metadata, owner)).some((s) => s.name === name)) throw new SandboxError(`snapshot "${name}" of ${metadata.name} exists already: pick another name`, "usage");
  if (workspace.mode === "jj") {
    const ws = workspace.hostPath;
    // A bookmark on @ would follow the agent's later edits: the snapshot is a duplicate of @.
    const said = await runVcsWithMessages(owner, "jj", ["-R", ws, "duplicate", "@"], "capture the working copy");
    const duplicated = /Duplicated \S+ as \S+ ([0-9a-f]+)/.exec(said.stderr)?.[1];
    if (duplicated === undefined) throw new SandboxError(`could not capture ${metadata.name}'s working copy: jj duplicate said ${said.stderr.trim()}`, "vcs");
    await runVcs(owner, "jj", ["-R", ws, "bookmark", "create", jjBookmark(metadata.name, name), "-r", duplicated], "name the snapshot");
  } else {
    const ws = workspace.hostPath;
    const scratch = await mkdtemp(join(tmpdir(), "forage-snapshot-"));
    try {
      await chown(scratch, owner.uid, owner.gid);
      const index = { GIT_INDEX_FILE: join(scratch, "index") };
      await runVcs(owner, "git", ["-C", ws, "add", "--all"], "capture the working copy", index);
      const tree = (await runVcs(owner, "git", ["-C", ws, "write-tree"], "capture the working copy", index)).trim();
      const commit = (await runVcs(owner, "git", ["-C", ws, "-c", "user.name=forage-ctl", "-c", "user.email=forage-ctl@localhost", "commit-tree", tree, "-p", "HEAD", "-m", `forage snapshot ${name} of ${metadata.name}`], "capture the working copy")).trim();
      await runVcs(owner, "git", ["-C", ws, "update-ref", gitRef(metadata.name, name), commit], "name the snapshot");
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
  const created = (await listSnapshots(metadata, owner)).find((s) => s.name === name);
  if (created === undefined) throw new SandboxError(`snapshot "${name}" was not recorded`, "vcs");
  return created;
}

/** The sandbox's snapshots, oldest first. */
export async function listSnapshots(metadata: SandboxMetadata, owner: RepoOwner): Promise<Snapshot[]> {
  const workspace = vcsWorkspace(metadata);
  const lines =
    workspace.mode === "jj"
      ? await runVcs(owner, "jj", ["-R", workspace.hostPath, "--ignore-working-copy", "bookmark", "list", "-T", 'name ++ "\\t" ++ normal_target.commit_id() ++ "\\t" ++ normal_target.committer().timestamp() ++ "\\n"', `glob:${jjBookmark(metadata.name, "*")}`], "list snapshots")
      : await runVcs(owner, "git", ["-C", workspace.hostPath, "for-each-ref", "--format=%(refname)%09%(objectname)%09%(creatordate:iso-strict)", `${gitRef(metadata.name, "")}`], "list snapshots");
  const prefix = workspace.mode === "jj" ? jjBookmark(metadata.name, "") : gitRef(metadata.name, "");
  return lines
    .split("\n")
    .map((line) => line.split("\t"))
    .filter((fields): fields is [string, string, string] => fields.length === 3 && fields[0]?.startsWith(prefix) === true)
    .map(([ref, commit, date]) => ({ name: ref.slice(prefix.length), commit, createdAt: new Date(date).toISOString() }))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.name.localeCompare(b.name));
}

/** Puts the snapshot's files back in the sandbox's working copy (history and branch untouched). */
export async function restoreSnapshot(metadata: SandboxMetadata, owner: RepoOwner, name: string): Promise<void> {
  const workspace = vcsWorkspace(metadata);
  assertName(name);
  if (!(await listSnapshots(metadata, owner)).some((s) => s.name === name)) throw new SandboxError(`${metadata.name} has no snapshot "${name}" (see forage-ctl snapshot list ${metadata.name})`, "not-found");
  if (workspace.mode === "jj") await runVcs(owner, "jj", ["-R", workspace.hostPath, "restore", "--from", jjBookmark(metadata.name, name)], "restore the snapshot");
  else await runVcs(owner, "git", ["-C", workspace.hostPath, "restore", `--source=${gitRef(metadata.name, name)}`, "--worktree", "--", "."], "restore the snapshot");
}

/** Deletes the sandbox's snapshot names (on down); their commits become unreferenced. */
export async function removeSnapshots(metadata: SandboxMetadata, owner: RepoOwner): Promise<void> {
  if (metadata.workspace.mode === "direct" || !metadata.workspace.managed) return;
  const snapshots = await listSnapshots(metadata, owner);
  if (snapshots.length === 0) return;
  const ws = metadata.workspace.hostPath;
  if (metadata.workspace.mode === "jj") await runVcs(owner, "jj", ["-R", ws, "bookmark", "delete", ...snapshots.map((s) => jjBookmark(metadata.name, s.name))], "delete the snapshots");
  else for (const snapshot of snapshots) await runVcs(owner, "git", ["-C", ws, "update-ref", "-d", gitRef(metadata.name, snapshot.name)], "delete the snapshots");
}

function vcsWorkspace(metadata: SandboxMetadata): WorkspaceMount & { mode: "jj" | "git-worktree" } {
  const workspace = metadata.workspace;
  if (workspace.mode === "direct") throw new SandboxError(`${metadata.name} mounts a directory as is: snapshots need a jj workspace or git worktree (forage-ctl up -r REPO)`, "usage");
  return workspace as WorkspaceMount & { mode: "jj" | "git-worktree" };
}

function assertName(name: string): void {
  if (!snapshotNamePattern.test(name)) throw new SandboxError(`invalid snapshot name "${name}": 1-128 of a-z, A-Z, 0-9, '.', '_' and '-', starting with a letter or digit`, "usage");
}

function jjBookmark(sandbox: string, name: string): string {
  return `forage-snapshot/${sandbox}/${name}`;
}

function gitRef(sandbox: string, name: string): string {
  return `refs/forage/snapshots/${sandbox}/${name}`;
}

import { SandboxError } from "../core/errors.js";
import type { SandboxMetadata, WorkspaceMount } from "../state/metadata.js";
import { runVcs, type RepoOwner } from "./vcs-command.js";

/** A named capture of a sandbox's working copy. */
export interface Snapshot {
  name: string;
  commit: string;
  createdAt: string;
}

/** Runs a command in the sandbox as the agent, in the workspace. */
export type RunInside = (command: string[]) => Promise<{ exitCode: number; stdout: string; stderr: string }>;

/**
 * Snapshot names: letters, digits, '.', '_' and '-', starting with a letter or digit; no "..",
 * no trailing "." or ".lock" (git refuses those in ref names).
 */
export const snapshotNamePattern = /^(?!.*\.\.)(?!.*\.lock$)(?!.*\.$)[a-zA-Z0-9][a-zA-Z0-9._-]{0,127}$/;

/*
 * Creating and restoring run *inside* the sandbox, as the agent: they read and write the working
 * copy, whose files (and pointers to the store) the agent controls, so no host process reads
 * them. Listing and deleting use only the recorded store on the host.
 */

/** git: the worktree's files, untracked ones too, as a commit under refs/forage/snapshots/… */
const gitCapture = [
  "set -e",
  "scratch=$(mktemp -d); trap 'rm -rf \"$scratch\"' EXIT; index=$scratch/index",
  "GIT_INDEX_FILE=$index git add --all",
  "tree=$(GIT_INDEX_FILE=$index git write-tree)",
  'commit=$(git -c user.name=forage-ctl -c user.email=forage-ctl@localhost -c commit.gpgSign=false commit-tree "$tree" -p HEAD -m "$2")',
  'git update-ref "$1" "$commit"',
].join("\n");

/**
 * Captures the sandbox's working copy — jj: a duplicate of the sandbox workspace's @ under the
 * bookmark forage-snapshot/<sandbox>/<name>; git: the worktree's files under
 * refs/forage/snapshots/<sandbox>/<name>. The sandbox's own history and branch are untouched.
 */
export async function createSnapshot(
  metadata: SandboxMetadata,
  owner: RepoOwner,
  inside: RunInside,
  name: string,
): Promise<Snapshot> {
  const workspace = vcsWorkspace(metadata);
  assertName(name);
  if ((await listSnapshots(metadata, owner)).some((s) => s.name === name))
    throw new SandboxError(`snapshot "${name}" of ${metadata.name} exists already: pick another name`, "usage");
  if (workspace.mode === "jj") {
    // A bookmark on @ would follow the agent's later edits: the snapshot is a duplicate of @.
    const duplicated = await mustSucceed(inside(["jj", "duplicate", "@"]), "capture the working copy");
    const commit = /Duplicated \S+ as \S+ ([0-9a-f]+)/.exec(duplicated.stderr)?.[1];
    if (commit === undefined)
      throw new SandboxError(
        `could not capture ${metadata.name}'s working copy: jj said ${duplicated.stderr.trim()}`,
        "vcs",
      );
    await mustSucceed(
      inside(["jj", "bookmark", "create", jjBookmark(metadata.name, name), "-r", commit]),
      "name the snapshot",
    );
  } else {
    await mustSucceed(
      inside([
        "sh",
        "-c",
        gitCapture,
        "forage-snapshot",
        gitRef(metadata.name, name),
        `forage snapshot ${name} of ${metadata.name}`,
      ]),
      "capture the working copy",
    );
  }
  const created = (await listSnapshots(metadata, owner)).find((s) => s.name === name);
  if (created === undefined) throw new SandboxError(`snapshot "${name}" was not recorded`, "vcs");
  return created;
}

/** The sandbox's snapshots, oldest first, read from the repository's store on the host. */
export async function listSnapshots(metadata: SandboxMetadata, owner: RepoOwner): Promise<Snapshot[]> {
  const workspace = vcsWorkspace(metadata);
  const prefix = workspace.mode === "jj" ? jjBookmark(metadata.name, "") : gitRef(metadata.name, "");
  const lines =
    workspace.mode === "jj"
      ? await runVcs(
          owner,
          "jj",
          [
            "-R",
            sourceRepo(workspace),
            "--ignore-working-copy",
            "bookmark",
            "list",
            "-T",
            'name ++ "\\t" ++ normal_target.commit_id() ++ "\\t" ++ normal_target.committer().timestamp() ++ "\\n"',
            `glob:${prefix}*`,
          ],
          "list snapshots",
        )
      : await runVcs(
          owner,
          "git",
          ["for-each-ref", "--format=%(refname)%09%(objectname)%09%(creatordate:iso-strict)", prefix],
          "list snapshots",
          { GIT_DIR: gitStorePath(workspace) },
        );
  return lines
    .split("\n")
    .map((line) => line.split("\t"))
    .filter(
      (fields): fields is [string, string, string] => fields.length === 3 && fields[0]?.startsWith(prefix) === true,
    )
    .map(([ref, commit, date]) => ({ name: ref.slice(prefix.length), commit, createdAt: new Date(date).toISOString() }))
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.name.localeCompare(b.name));
}

/** Puts the snapshot's files back in the sandbox's working copy (history and branch untouched). */
export async function restoreSnapshot(
  metadata: SandboxMetadata,
  owner: RepoOwner,
  inside: RunInside,
  name: string,
): Promise<void> {
  const workspace = vcsWorkspace(metadata);
  assertName(name);
  if (!(await listSnapshots(metadata, owner)).some((s) => s.name === name))
    throw new SandboxError(
      `${metadata.name} has no snapshot "${name}" (see forage-ctl snapshot list ${metadata.name})`,
      "not-found",
    );
  // git rewrites every file whose index stat data differs from what it sees, and a protected
  // path (a mount point) cannot be rewritten. Under gVisor every file's device and inode differ
  // from the host's, where the index was written: a refresh first (as `git status` does) leaves
  // only the files whose content differs. Its exit status says whether some do; both are fine.
  if (workspace.mode !== "jj") await inside(["git", "update-index", "-q", "--refresh"]);
  // jj reads a bare name as a revset expression: the bookmark is named exactly.
  const command =
    workspace.mode === "jj"
      ? ["jj", "restore", "--from", `bookmarks(exact:"${jjBookmark(metadata.name, name)}")`]
      : ["git", "restore", `--source=${gitRef(metadata.name, name)}`, "--worktree", "--", "."];
  await mustSucceed(inside(command), "restore the snapshot");
}

/** Deletes the sandbox's snapshot names (on down), on the host store; their commits become unreferenced. */
export async function removeSnapshots(metadata: SandboxMetadata, owner: RepoOwner): Promise<void> {
  if (metadata.workspace.mode === "direct" || !metadata.workspace.managed) return;
  const workspace = vcsWorkspace(metadata);
  const snapshots = await listSnapshots(metadata, owner);
  if (snapshots.length === 0) return;
  if (workspace.mode === "jj") {
    const names = snapshots.map((s) => `exact:${jjBookmark(metadata.name, s.name)}`);
    await runVcs(
      owner,
      "jj",
      ["-R", sourceRepo(workspace), "--ignore-working-copy", "bookmark", "delete", ...names],
      "delete the snapshots",
    );
  } else {
    for (const snapshot of snapshots)
      await runVcs(owner, "git", ["update-ref", "-d", gitRef(metadata.name, snapshot.name)], "delete the snapshots", {
        GIT_DIR: gitStorePath(workspace),
      });
  }
}

function vcsWorkspace(metadata: SandboxMetadata): WorkspaceMount & { mode: "jj" | "git-worktree" } {
  const workspace = metadata.workspace;
  if (workspace.mode === "direct")
    throw new SandboxError(
      `${metadata.name} mounts a directory as is: snapshots need a jj workspace or git worktree (forage-ctl up -r REPO)`,
      "usage",
    );
  return workspace as WorkspaceMount & { mode: "jj" | "git-worktree" };
}

function sourceRepo(workspace: WorkspaceMount): string {
  if (workspace.sourceRepo === undefined)
    throw new SandboxError("the sandbox's metadata has no repository recorded", "vcs");
  return workspace.sourceRepo;
}

function gitStorePath(workspace: WorkspaceMount): string {
  const store = workspace.stores?.find((s) => s.kind === "git")?.path;
  if (store === undefined) throw new SandboxError("the sandbox's metadata has no git store recorded", "vcs");
  return store;
}

async function mustSucceed(running: ReturnType<RunInside>, doing: string): Promise<{ stdout: string; stderr: string }> {
  const result = await running;
  if (result.exitCode !== 0)
    throw new SandboxError(`could not ${doing}: ${result.stderr.trim().split("\n").slice(-3).join(" / ")}`, "vcs");
  return result;
}

function assertName(name: string): void {
  if (!snapshotNamePattern.test(name))
    throw new SandboxError(
      `invalid snapshot name "${name}": 1-128 of a-z, A-Z, 0-9, '.', '_' and '-', starting with a letter or digit, without ".." or a trailing "." or ".lock"`,
      "usage",
    );
}

function jjBookmark(sandbox: string, name: string): string {
  return `forage-snapshot/${sandbox}/${name}`;
}

function gitRef(sandbox: string, name: string): string {
  return `refs/forage/snapshots/${sandbox}/${name}`;
}

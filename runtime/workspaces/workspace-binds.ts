import { join } from "node:path";
import type { SandboxMetadata, WorkspaceMount } from "../state/metadata.js";
import { existingFilesUnder, existingUnder, protectedPaths, repoProtectedPaths, vcsPointerFiles } from "./protected-paths.js";
import type { Bind } from "../nspawn/container-process.js";
import { ownedDirectory, storeBinds, type VcsStore } from "./vcs-stores.js";

/**
 * The binds that make a sandbox's workspaces: the primary workspace at `workspacePath`, the
 * template's mounts, each repository's shared store at its own path (read-only but for what the
 * VCS writes), and, last so they lie over the writable binds, the protected paths read-only.
 * Every source is checked again (a directory, no symbolic link on the way, the user's or root's).
 * readOnlyWorkspace makes all of it read-only.
 */
export async function workspaceBinds(metadata: SandboxMetadata, workspacePath: string, options: { readOnly: boolean; unprotected: readonly string[] }): Promise<Bind[]> {
  const placed: { mount: WorkspaceMount; target: string; readOnly: boolean }[] = [
    { mount: metadata.workspace, target: workspacePath, readOnly: options.readOnly },
    ...metadata.mounts.map((mount) => ({ mount, target: mount.containerPath, readOnly: options.readOnly || mount.readOnly })),
  ];
  const binds: Bind[] = [];
  for (const { mount, target, readOnly } of placed) binds.push({ source: await ownedDirectory(mount.hostPath, metadata), target, readOnly });
  const stores = new Map<string, VcsStore>();
  for (const { mount } of placed) for (const store of mount.stores ?? []) stores.set(`${store.path}\0${store.worktreeDir ?? ""}`, store);
  for (const store of stores.values()) binds.push(...(await storeBinds(store, metadata, options.readOnly)));
  if (options.readOnly) return binds;
  const guarded = protectedPaths.filter((path) => !options.unprotected.includes(path));
  for (const { mount, target, readOnly } of placed) {
    if (!readOnly) binds.push(...(await protectedBinds(mount.hostPath, target, [...new Set([...guarded, ...(await repoProtectedPaths(mount.hostPath))])])));
  }
  return binds;
}

/**
 * Read-only binds of the protected paths a workspace has. The directories holding them (.git,
 * .jj, .jj/repo) are first bound onto themselves: a mount point cannot be renamed, so the agent
 * cannot move `.git` aside and put a `.git/config` of its own in its place.
 */
async function protectedBinds(source: string, target: string, paths: string[]): Promise<Bind[]> {
  // A worktree's .git file and a jj workspace's .jj/repo file say where the store is: read-only too.
  const present = [...(await existingUnder(source, paths)), ...(await existingFilesUnder(source, vcsPointerFiles))];
  const holders = [...new Set(present.flatMap((path) => ancestors(path)))].sort();
  const existingHolders = await existingUnder(source, holders);
  return [
    ...existingHolders.map((dir) => ({ source: join(source, dir), target: join(target, dir), readOnly: false })),
    ...present.map((path) => ({ source: join(source, path), target: join(target, path), readOnly: true })),
  ];
}

/** "a/b/c" → ["a", "a/b"]. */
function ancestors(path: string): string[] {
  const parts = path.split("/");
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join("/"));
}

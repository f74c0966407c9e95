import { lstat } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { SandboxMetadata, WorkspaceMount } from "../state/metadata.js";
import type { Bind } from "../core/bind.js";
import { guardState, jjLayout, workspaceGuards, type Guard, type Placeholder } from "./guarded-paths.js";
import { makeMountPoints } from "./placeholders.js";
import { ownedDirectory, storeBinds, type VcsStore } from "./vcs-stores.js";

/**
 * The binds that make a sandbox's workspaces: the primary workspace at `workspacePath`, the
 * template's mounts, each repository's shared store at its own path (read-only but for what the
 * VCS writes), and, last so they lie over the writable binds, the guarded paths read-only (an
 * absent one as an empty stand-in, see guarded-paths.ts). Every source comes from a path the
 * user controls, so every one is bound through a descriptor opened without following links
 * (`owners`, see stageBinds): the primary workspace must be the user's, the rest the user's or
 * root's. readOnlyWorkspace makes all of it read-only.
 */
export async function workspaceBinds(metadata: SandboxMetadata, workspacePath: string, options: { readOnly: boolean; unprotected: readonly string[]; standIns: boolean }): Promise<Bind[]> {
  const placed: { mount: WorkspaceMount; target: string; readOnly: boolean }[] = [
    { mount: metadata.workspace, target: workspacePath, readOnly: options.readOnly },
    ...metadata.mounts.map((mount) => ({ mount, target: mount.containerPath, readOnly: options.readOnly || mount.readOnly })),
  ];
  const owners = [metadata.uid, 0];
  const binds: Bind[] = [];
  for (const [i, { mount, target, readOnly }] of placed.entries()) {
    binds.push({ source: await ownedDirectory(mount.hostPath, metadata), target, readOnly, owners: i === 0 ? [metadata.uid] : owners });
  }
  const stores = new Map<string, VcsStore>();
  for (const { mount } of placed) for (const store of mount.stores ?? []) stores.set(`${store.path}\0${store.worktreeDir ?? ""}`, store);
  for (const store of stores.values()) binds.push(...(await storeBinds(store, metadata, options.readOnly)));
  if (options.readOnly) return binds;
  for (const { mount, target, readOnly } of placed) {
    if (!readOnly) binds.push(...(await guardedBinds(mount.hostPath, target, await workspaceGuards(mount.hostPath, options.unprotected), metadata, options.standIns)));
  }
  return binds;
}

/**
 * Read-only binds of a workspace's guarded paths: present ones onto themselves, absent ones as
 * stand-ins (their mount points made as the user: see placeholders.ts), after the jj layout
 * (jjLayoutBinds). The directories holding them (.git, .git/objects, …) are first bound onto
 * themselves: a mount point cannot be renamed, so the agent cannot move `.git` aside and put a
 * `.git/config` of its own in its place.
 */
async function guardedBinds(source: string, target: string, guards: readonly Guard[], user: { uid: number; gid: number }, standIns: boolean): Promise<Bind[]> {
  const owners = [user.uid, 0];
  const jj = await jjLayoutBinds(source, target, owners);
  const present = new Set<string>();
  const absent = new Map<string, Bind & { placeholder: Placeholder }>();
  for (const guard of guards) {
    const found = await guardState(source, guard);
    if (found.state === "present") present.add(found.path);
    if (found.state === "absent" && standIns) absent.set(found.path, { source: "", target: join(target, found.path), readOnly: true, placeholder: found.placeholder });
  }
  // A guard under another one (a .forage/protected entry under .forage) is covered by it; an
  // absent one in jj's read-only directories cannot be created anyway.
  const covered = (path: string): boolean => ancestors(path).some((dir) => present.has(dir) || absent.has(dir));
  const inReadOnlyJj = (path: string): boolean => jj.readOnly.some((dir) => ancestors(path).at(-1) === dir);
  for (const path of [...absent.keys()]) if (covered(path) || inReadOnlyJj(path)) absent.delete(path);
  await makeMountPoints(source, new Map([...absent].map(([path, bind]) => [path, bind.placeholder])), user);
  const holders = [...new Set([...present, ...absent.keys()].flatMap((path) => ancestors(path)))].filter((dir) => !covered(dir) && !present.has(dir) && !jj.mountPoints.has(dir)).sort();
  return [
    ...jj.binds,
    ...holders.map((dir) => ({ source: join(source, dir), target: join(target, dir), readOnly: false, owners })),
    ...[...present].filter((path) => !covered(path)).map((path) => ({ source: join(source, path), target: join(target, path), readOnly: true, owners })),
    ...absent.values(),
  ];
}

/**
 * `.jj` (and `.jj/repo` when it is the store) read-only, what jj writes read-write over it (see
 * jjLayout); nothing when there is no `.jj` directory.
 */
async function jjLayoutBinds(source: string, target: string, owners: readonly number[]): Promise<{ binds: Bind[]; mountPoints: Set<string>; readOnly: string[] }> {
  const isDir = async (path: string): Promise<boolean> => (await guardState(source, { path, placeholder: null })).state === "present" && (await lstat(join(source, path))).isDirectory();
  const readOnly: string[] = [];
  for (const dir of jjLayout.readOnly) if (await isDir(dir)) readOnly.push(dir);
  if (!readOnly.includes(".jj")) return { binds: [], mountPoints: new Set(), readOnly: [] };
  const writable: string[] = [];
  for (const dir of jjLayout.writable) if (readOnly.some((ro) => dirname(dir) === ro) && (await isDir(dir))) writable.push(dir);
  const bind = (path: string, ro: boolean): Bind => ({ source: join(source, path), target: join(target, path), readOnly: ro, owners });
  return { binds: [...readOnly.map((dir) => bind(dir, true)), ...writable.map((dir) => bind(dir, false))], mountPoints: new Set([...readOnly, ...writable]), readOnly };
}

/** "a/b/c" → ["a", "a/b"]. */
function ancestors(path: string): string[] {
  const parts = path.split("/");
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join("/"));
}

import { join } from "node:path";
import type { SandboxMetadata, WorkspaceMount } from "../state/metadata.js";
import { existingUnder, protectedInVcsDir, protectedPaths, repoProtectedPaths } from "./protected-paths.js";

export interface Bind {
  source: string;
  target: string;
  readOnly: boolean;
}

/**
 * The binds that make a sandbox's workspaces: the primary workspace at `workspacePath`, the
 * template's mounts, each jj/git repository's shared directory at its own path, and, last (so they
 * lie over the writable binds), the protected paths read-only. readOnlyWorkspace makes all of it
 * read-only.
 */
export async function workspaceBinds(metadata: SandboxMetadata, workspacePath: string, options: { readOnly: boolean; unprotected: readonly string[] }): Promise<Bind[]> {
  const placed: { mount: WorkspaceMount; target: string; readOnly: boolean }[] = [
    { mount: metadata.workspace, target: workspacePath, readOnly: options.readOnly },
    ...metadata.mounts.map((mount) => ({ mount, target: mount.containerPath, readOnly: options.readOnly || mount.readOnly })),
  ];
  const binds: Bind[] = placed.map(({ mount, target, readOnly }) => ({ source: mount.hostPath, target, readOnly }));
  const vcsDirs = new Map<string, WorkspaceMount["mode"]>();
  for (const { mount } of placed) if (mount.vcsDir !== undefined) vcsDirs.set(mount.vcsDir, mount.mode);
  for (const dir of vcsDirs.keys()) binds.push({ source: dir, target: dir, readOnly: options.readOnly });
  if (options.readOnly) return binds;
  const guarded = protectedPaths.filter((path) => !options.unprotected.includes(path));
  for (const { mount, target, readOnly } of placed) {
    if (readOnly) continue;
    const paths = [...new Set([...guarded, ...(await repoProtectedPaths(mount.hostPath))])];
    for (const name of await existingUnder(mount.hostPath, paths)) binds.push({ source: join(mount.hostPath, name), target: join(target, name), readOnly: true });
  }
  for (const [dir, mode] of vcsDirs) {
    if (mode === "direct") continue;
    const names = protectedInVcsDir[mode].filter((name) => !options.unprotected.includes(mode === "jj" ? ".jj/repo/config.toml" : `.git/${name}`));
    for (const name of await existingUnder(dir, names)) binds.push({ source: join(dir, name), target: join(dir, name), readOnly: true });
  }
  return binds;
}

import { join } from "node:path";
import type { SandboxMetadata, WorkspaceMount } from "../state/metadata.js";
import type { Bind, Pin } from "../core/bind.js";
import { SandboxError } from "../core/errors.js";
import type { StandIn } from "./placeholders.js";
import { ownedDirectory, storeBinds, type VcsStore } from "./vcs-stores.js";
import { workspacePins } from "./workspace-pins.js";

/** How a runtime binds a sandbox's workspaces. */
export interface WorkspaceBindOptions {
  readOnly: boolean;
  unprotected: readonly string[];
  /**
   * The runtime stages its binds from descriptors (stageBinds): each workspace goes in as one tree
   * assembled with its pins (links held, stand-ins for absent paths). Otherwise (extra-container,
   * which binds by path through NixOS) every pin is a bind of its own, and a link or a stand-in
   * cannot be one.
   */
  pinned: boolean;
  /** Told the stand-ins made in each workspace (by host path), to record them for their removal. */
  madeStandIns?: (folder: string, made: readonly StandIn[]) => Promise<void>;
}

/**
 * The binds that make a sandbox's workspaces: the primary workspace at `workspacePath`, the
 * template's mounts, and each repository's shared store at its own path (read-only but for what
 * the VCS writes). Each writable workspace carries its pins (workspace-pins.ts): its guarded
 * paths held read-only wherever they lead, stand-ins for absent ones. Every source comes from a
 * path the user controls, so every one is bound through a descriptor opened without following
 * links (`owners`, see stageBinds): the primary workspace must be the user's, the rest the user's
 * or root's. readOnlyWorkspace makes all of it read-only.
 */
export async function workspaceBinds(
  metadata: SandboxMetadata,
  workspacePath: string,
  options: WorkspaceBindOptions,
): Promise<Bind[]> {
  const placed: { mount: WorkspaceMount; target: string; readOnly: boolean }[] = [
    { mount: metadata.workspace, target: workspacePath, readOnly: options.readOnly },
    ...metadata.mounts.map((mount) => ({
      mount,
      target: mount.containerPath,
      readOnly: options.readOnly || mount.readOnly,
    })),
  ];
  const sources: string[] = [];
  for (const { mount } of placed) sources.push(await ownedDirectory(mount.hostPath, metadata));
  const writable = placed.flatMap((entry, i) => (entry.readOnly ? [] : [i]));
  const { pins, made } = await workspacePins(
    writable.map((i) => ({ hostPath: sources[i] ?? "/", unprotected: options.unprotected })),
    metadata,
    options.pinned,
  );
  for (const [n, i] of writable.entries())
    if ((made[n] ?? []).length > 0) await options.madeStandIns?.(sources[i] ?? "/", made[n] ?? []);
  const pinsOf = (i: number): readonly Pin[] => pins[writable.indexOf(i)] ?? [];
  const binds: Bind[] = placed.map(({ target, readOnly }, i) => ({
    source: sources[i] ?? "/",
    target,
    readOnly,
    owners: i === 0 ? [metadata.uid] : [metadata.uid, 0],
    ...(options.pinned && pinsOf(i).length > 0 ? { pins: pinsOf(i) } : {}),
  }));
  const stores = new Map<string, VcsStore>();
  for (const { mount } of placed)
    for (const store of mount.stores ?? []) stores.set(`${store.path}\0${store.worktreeDir ?? ""}`, store);
  for (const store of stores.values()) binds.push(...(await storeBinds(store, metadata, options.readOnly)));
  if (options.pinned) return binds;
  return [...binds, ...placed.flatMap(({ target }, i) => pinsByPath(sources[i] ?? "/", target, pinsOf(i)))];
}

/**
 * A workspace's pins as binds by path, for a runtime that binds nothing else (extra-container): a
 * held link is refused (NixOS's binds follow it, so it could not be held, and the agent could put
 * a directory of its own in its place, which the host's tools would then read).
 */
function pinsByPath(source: string, target: string, pins: readonly Pin[]): Bind[] {
  return pins.flatMap((pin): Bind[] => {
    if (pin.kind === "stand-in") return [];
    if (pin.link === true) {
      throw new SandboxError(
        `${join(source, pin.path)} is a symbolic link, and the extra-container runtime cannot hold a link in place (NixOS binds by path and follows links), so the agent could replace it with what your git, direnv or editor would then read. Replace the link with what it points to, list the path in the template's workspace.unprotected, or use --runtime nspawn or nspawn-nix`,
        "usage",
      );
    }
    return [{ source: join(source, pin.path), target: join(target, pin.path), readOnly: pin.readOnly }];
  });
}

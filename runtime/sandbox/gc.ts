import { lstat, readdir, rm } from "node:fs/promises";
import { removeSandboxDir } from "../workspaces/remove-workspaces.js";
import { pathUnder, sandboxNamePattern } from "../core/names.js";
import { removeHostPolicy } from "../gates/network/host-policy.js";
import { removeLink, sandboxLink } from "../gates/network/sandbox-link.js";
import { unmountRoot } from "../mounts/root-mount.js";
import { rootPath } from "../core/paths.js";
import { isAlive } from "../core/process-alive.js";
import { listMetadata, readMetadata } from "../state/metadata-store.js";
import { rootKeyOf } from "../state/metadata.js";
import { hostSlots, readClaims, releaseSlot, slotOwner, type SlotClaim } from "../state/slots.js";
import type { RuntimeContext } from "../core/context.js";
import { destroySandbox } from "./down.js";
import { withSandboxLock } from "../state/sandbox-lock.js";
import { removeSecrets } from "../provision/secrets.js";
import { checkpointOf } from "./checkpoint-state.js";
import { isRunning, stopSandbox } from "./start-stop.js";

/** One thing gc found that no live sandbox accounts for. */
export interface Orphan {
  kind:
    | "half-created sandbox"
    | "stale runtime state"
    | "root"
    | "lock file"
    | "secrets"
    | "workspace"
    | "network namespace"
    | "slot claim";
  name: string;
  detail: string;
}

/**
 * Finds what crashed or interrupted operations left behind. A stopped sandbox is not an orphan
 * (the reference treated it as one); a sandbox whose `up` died half-way is, and so are roots,
 * secret copies and network namespaces that belong to no sandbox.
 */
export async function findOrphans(context: RuntimeContext): Promise<Orphan[]> {
  // Read before the sandboxes are: an up writes its metadata before its root, secrets or
  // workspaces, so whatever is listed here belongs to a sandbox listed below, if to any.
  const [roots, secrets, workspaces] = await Promise.all([
    entries(context.paths.rootsDir),
    entries(context.paths.secretsDir),
    entries(context.paths.workspacesDir),
  ]);
  const sandboxes = await listMetadata(context.paths);
  // A claimed pool member's root keeps the member's name (rootKeyOf) until the sandbox stops.
  const known = new Set(sandboxes.flatMap((s) => [s.name, rootKeyOf(s)]));
  const orphans: Orphan[] = [];
  const running = new Set<string>();
  for (const sandbox of sandboxes)
    if (await isRunning(context, sandbox)) for (const name of [sandbox.name, rootKeyOf(sandbox)]) running.add(name);
  // Being made by a live up (or the pool keeper): its container may start after the check above.
  const beingMade = new Set(
    sandboxes
      .filter((sandbox) => sandbox.phase === "creating" && isAlive(sandbox.creatorPid))
      .flatMap((sandbox) => [sandbox.name, rootKeyOf(sandbox)]),
  );
  for (const sandbox of sandboxes) {
    const isUp = running.has(sandbox.name);
    if (sandbox.phase === "creating" && !isAlive(sandbox.creatorPid) && !isUp) {
      orphans.push({
        kind: "half-created sandbox",
        name: sandbox.name,
        detail: `its up (pid ${sandbox.creatorPid}) died before finishing`,
      });
    } else if (
      !isUp &&
      (sandbox.pid !== null || sandbox.cgroup !== null) &&
      // A checkpointed sandbox keeps its cgroup, root and network on purpose.
      (await checkpointOf(context, sandbox)) === undefined
    ) {
      orphans.push({
        kind: "stale runtime state",
        name: sandbox.name,
        detail: "recorded as running but its container is gone",
      });
    }
  }
  const claims = await readClaims(hostSlots.dir);
  // Roots and secrets live in host-wide directories by default: another instance's are not ours.
  const others = new Set(
    [...claims.values()]
      .filter((claim) => claim.stateDir !== slotOwner(context, "").stateDir)
      .map((claim) => claim.sandbox),
  );
  for (const entry of roots) {
    // systemd-nspawn locks a root with `.#<name>.lck` beside it and cannot remove it when killed.
    const lock = /^\.#(.+)\.lck$/.exec(entry)?.[1];
    if (lock !== undefined && !running.has(lock) && !beingMade.has(lock) && !others.has(lock))
      orphans.push({ kind: "lock file", name: lock, detail: `${context.paths.rootsDir}/${entry}` });
    else if (sandboxNamePattern.test(entry) && !known.has(entry) && !others.has(entry))
      orphans.push({ kind: "root", name: entry, detail: rootPath(context.paths, entry) });
  }
  for (const name of secrets) {
    if (sandboxNamePattern.test(name) && !known.has(name) && !others.has(name))
      orphans.push({ kind: "secrets", name, detail: `${context.paths.secretsDir}/${name}` });
  }
  // A crash while an up was making its jj workspaces / git worktrees, before they were recorded.
  for (const name of workspaces) {
    if (sandboxNamePattern.test(name) && !known.has(name))
      orphans.push({
        kind: "workspace",
        name,
        detail: `${context.paths.workspacesDir}/${name} (git worktree prune / jj workspace forget tidy the repository)`,
      });
  }
  orphans.push(...(await orphanSlots(context, claims)));
  return orphans;
}

/** Stops what is left of a sandbox whose container is gone, as its metadata says under its lock (a start meanwhile made it live again). */
async function stopIfStillStale(context: RuntimeContext, name: string): Promise<void> {
  const now = await readMetadata(context.paths, name);
  if (now !== undefined && !(await isRunning(context, now))) await stopSandbox(context, now, 1);
}

/** Removes what findOrphans reported. */
export async function removeOrphans(context: RuntimeContext, orphans: Orphan[]): Promise<void> {
  const sandboxes = new Map((await listMetadata(context.paths)).map((s) => [s.name, s]));
  for (const orphan of orphans) {
    const sandbox = sandboxes.get(orphan.name);
    if (orphan.kind === "half-created sandbox") await destroySandbox(context, orphan.name, 1);
    else if (orphan.kind === "stale runtime state" && sandbox !== undefined)
      await withSandboxLock(context, orphan.name, () => stopIfStillStale(context, sandbox.name));
    else if (orphan.kind === "root") await unmountRoot(rootPath(context.paths, orphan.name));
    else if (orphan.kind === "lock file") await rm(orphan.detail, { force: true });
    else if (orphan.kind === "secrets") await removeSecrets(context.paths, orphan.name);
    else if (orphan.kind === "workspace")
      await removeOrphanWorkspaces(pathUnder(context.paths.workspacesDir, orphan.name));
    else if (orphan.kind === "network namespace" || orphan.kind === "slot claim")
      await removeSlotResources(context, Number(orphan.name.slice(1)));
  }
}

/**
 * A slot of ours no sandbox holds: the link first, then its policy (a link without its table
 * would pass traffic unfiltered), then the claim.
 */
async function removeSlotResources(context: RuntimeContext, slot: number): Promise<void> {
  // Asked again: an up may have taken the slot since gc looked.
  const claim = (await readClaims(hostSlots.dir)).get(slot);
  if (claim?.stateDir !== slotOwner(context, "").stateDir || (await hostSlots.ownerHolds(claim, slot))) return;
  const link = sandboxLink(slot, context.settings.host.network.base);
  await removeLink(link);
  await removeHostPolicy(link);
  await releaseSlot(hostSlots, slot, claim);
}

/** Removes a workspace directory no sandbox owns, as whoever owns it (it may hold their links). */
async function removeOrphanWorkspaces(dir: string): Promise<void> {
  const info = await lstat(dir).catch(() => undefined);
  if (info?.isDirectory() === true) await removeSandboxDir(dir, { uid: info.uid, gid: info.gid, home: "/" });
}

/**
 * Slots this state directory claimed for a sandbox it no longer has (on that slot): their
 * namespace, if it exists, and the claim. What the host registry says another instance (or
 * nobody) claimed is never ours, whatever addresses it carries.
 */
async function orphanSlots(context: RuntimeContext, claims: Map<number, SlotClaim>): Promise<Orphan[]> {
  const ours = slotOwner(context, "").stateDir;
  const orphans: Orphan[] = [];
  for (const [slot, claim] of claims) {
    if (claim.stateDir !== ours || (await hostSlots.ownerHolds(claim, slot))) continue;
    const name = `f${slot}`;
    if (await hostSlots.inUseOnHost(slot))
      orphans.push({ kind: "network namespace", name, detail: `claimed for ${claim.sandbox}, which is gone` });
    else orphans.push({ kind: "slot claim", name, detail: `slot ${slot} claimed for ${claim.sandbox}, which is gone` });
  }
  return orphans;
}

async function entries(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => [] as string[]);
}

import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { z } from "zod";
import { sandboxLink } from "../../generator/policy/network/sandbox-link.js";
import { pathUnder } from "../core/names.js";
import { runtimePaths } from "../core/paths.js";
import { withLock } from "./lock.js";
import { readMetadata } from "./metadata-store.js";
import type { SandboxMetadata } from "./metadata.js";
import { pathExists } from "../core/path-exists.js";
import { writeFileAtomic } from "../core/write-file-atomic.js";

/** Slots are 1..254: the third octet of the sandbox's addresses. */
export const maxSlot = 254;

/**
 * The host-wide slot registry. A slot names host resources (namespace `f<N>`, link `ve-f<N>`,
 * nft table) that every Forage state directory on the host shares, so slots are claimed here,
 * not per state directory. Fixed on purpose: it does not follow FORAGE_RUN_DIR (per test host or
 * per instance), since instances that did not share it would collide again.
 */
export const hostSlotsDir = "/run/forage/slots";

/** Who holds a slot: a sandbox of one state directory (absolute path). */
export interface SlotClaim {
  stateDir: string;
  sandbox: string;
}

const claimSchema = z.strictObject({
  stateDir: z.string().min(1).describe("absolute path of the owning state directory"),
  sandbox: z.string().min(1).describe("the owning sandbox's name"),
});

/** Where claims live and how the host and their owners are asked (tests give their own). */
export interface SlotRegistry {
  /** `<dir>/<N>` claim files (JSON SlotClaim) and `<dir>/lock`, root-only. */
  dir: string;
  /** True when slot N's namespace or link exists on the host, whoever made it. */
  inUseOnHost(slot: number): Promise<boolean>;
  /** True while the claim's state directory still has that sandbox, on that slot. */
  ownerHolds(claim: SlotClaim, slot: number): Promise<boolean>;
}

/** The registry every Forage instance on this host shares. */
export const hostSlots: SlotRegistry = {
  dir: hostSlotsDir,
  inUseOnHost: namespaceOrLinkExists,
  ownerHolds: metadataHolds,
};

/**
 * Claims the lowest slot no instance on the host holds and runs `record(slot)` (writing the
 * sandbox's metadata) before letting go of the registry's lock, so another instance never sees a
 * claim whose owner has not recorded it yet (and would reclaim it as stale). A claim whose owner
 * no longer has that sandbox is reclaimed, unless its namespace or link still exists.
 * Undefined when all slots are taken.
 */
export async function claimSlot(
  registry: SlotRegistry,
  owner: SlotClaim,
  own: readonly SandboxMetadata[],
  record: (slot: number) => Promise<void>,
): Promise<number | undefined> {
  return locked(registry, async () => {
    const claims = await readClaims(registry.dir);
    await claimUnrecorded(registry.dir, claims, owner.stateDir, own);
    const ownSlots = new Set(own.map((s) => s.slot));
    for (let slot = 1; slot <= maxSlot; slot++) {
      if (ownSlots.has(slot)) continue;
      const claim = claims.get(slot);
      if (claim !== undefined && (await registry.ownerHolds(claim, slot))) continue;
      if (await registry.inUseOnHost(slot)) continue;
      const file = claimFile(registry.dir, slot);
      // A stale claim (its owner no longer holds the slot) is replaced, under the lock.
      await rm(file, { force: true });
      await writeFile(file, `${JSON.stringify(owner)}\n`, { flag: "wx", mode: 0o600 });
      try {
        await record(slot);
      } catch (error) {
        await rm(file, { force: true });
        throw error;
      }
      return slot;
    }
    return undefined;
  });
}

/**
 * Passes a slot `from` holds to `to` (a warm pool's member to the sandbox that claims it), running
 * `record()` (writing the new owner's metadata) under the registry's lock first, so the claim's
 * owner always has the slot recorded. False, with nothing changed, when `from` does not hold it.
 */
export async function passSlot(
  registry: SlotRegistry,
  slot: number,
  from: SlotClaim,
  to: SlotClaim,
  record: () => Promise<void>,
): Promise<boolean> {
  return locked(registry, async () => {
    const claim = (await readClaims(registry.dir)).get(slot);
    if (claim === undefined || !sameClaim(claim, from)) return false;
    await record();
    await writeFileAtomic(claimFile(registry.dir, slot), `${JSON.stringify(to)}\n`, 0o600);
    return true;
  });
}

/** Gives a slot back, if `owner` holds it (a claim since taken over by someone else stays). */
export async function releaseSlot(registry: SlotRegistry, slot: number, owner: SlotClaim): Promise<void> {
  await locked(registry, async () => {
    const claim = (await readClaims(registry.dir)).get(slot);
    if (claim !== undefined && sameClaim(claim, owner)) await rm(claimFile(registry.dir, slot), { force: true });
  });
}

/** Every claim, by slot. A claim file that cannot be read counts as an owner that is gone. */
export async function readClaims(dir: string): Promise<Map<number, SlotClaim>> {
  const claims = new Map<number, SlotClaim>();
  for (const entry of await readdir(dir).catch(() => [] as string[])) {
    if (!/^[1-9]\d{0,2}$/.test(entry)) continue;
    const text = await readFile(pathUnder(dir, entry), "utf8").catch(() => "");
    const parsed = claimSchema.safeParse(safeJson(text));
    claims.set(Number(entry), parsed.success ? parsed.data : { stateDir: "", sandbox: "" });
  }
  return claims;
}

/** The claim a sandbox of this state directory makes (the directory absolute, as others read it). */
export function slotOwner(context: { paths: { stateDir: string } }, sandbox: string): SlotClaim {
  return { stateDir: resolve(context.paths.stateDir), sandbox };
}

export function sameClaim(a: SlotClaim, b: SlotClaim): boolean {
  return a.stateDir === b.stateDir && a.sandbox === b.sandbox;
}

/**
 * Sandboxes made before slots were host-wide have no claim: claim their slots for them (when
 * free), so that another instance does not take a stopped sandbox's slot.
 */
async function claimUnrecorded(
  dir: string,
  claims: Map<number, SlotClaim>,
  stateDir: string,
  own: readonly SandboxMetadata[],
): Promise<void> {
  for (const sandbox of own) {
    if (claims.has(sandbox.slot)) continue;
    const claim = { stateDir, sandbox: sandbox.name };
    await writeFile(claimFile(dir, sandbox.slot), `${JSON.stringify(claim)}\n`, { flag: "wx", mode: 0o600 });
    claims.set(sandbox.slot, claim);
  }
}

async function locked<T>(registry: SlotRegistry, work: () => Promise<T>): Promise<T> {
  // The parent first, at 0755: users traverse /run/forage to reach the daemon's socket.
  await mkdir(dirname(registry.dir), { recursive: true, mode: 0o755 });
  await mkdir(registry.dir, { recursive: true, mode: 0o700 });
  return withLock(pathUnder(registry.dir, "lock"), work);
}

function claimFile(dir: string, slot: number): string {
  return pathUnder(dir, String(slot));
}

async function namespaceOrLinkExists(slot: number): Promise<boolean> {
  const link = sandboxLink(slot, "0.0");
  for (const path of [link.namespacePath, `/sys/class/net/${link.hostInterface}`]) {
    if (await pathExists(path)) return true;
  }
  return false;
}

/** Unreadable metadata counts as holding the slot: never take a slot on a guess. */
async function metadataHolds(claim: SlotClaim, slot: number): Promise<boolean> {
  if (claim.stateDir === "") return false;
  const metadata = await readMetadata(runtimePaths(claim.stateDir, {}), claim.sandbox).catch(
    () => "unreadable" as const,
  );
  return metadata === "unreadable" || metadata?.slot === slot;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

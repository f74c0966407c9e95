import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SandboxMetadata } from "../../../runtime/state/metadata.js";
import {
  claimSlot,
  passSlot,
  readClaims,
  releaseSlot,
  type SlotClaim,
  type SlotRegistry,
} from "../../../runtime/state/slots.js";

/*
 * The host-wide slot registry, on a private directory. The host (which namespaces exist) and the
 * owners (which state directories still have which sandboxes) are given as plain sets, so each
 * case says exactly what the registry was shown.
 */
describe("host-wide slot claims", () => {
  let dir: string;
  /** Slots whose namespace or link exists on the "host". */
  let onHost: Set<number>;
  /** "stateDir/sandbox@slot" entries whose owner still has them. */
  let held: Set<string>;
  let registry: SlotRegistry;
  const a = (sandbox: string): SlotClaim => ({ stateDir: "/var/lib/a", sandbox });
  const b = (sandbox: string): SlotClaim => ({ stateDir: "/var/lib/b", sandbox });
  /** Claims a slot the way `up` does: the owner records it (its metadata) while the lock is held. */
  const claim = (owner: SlotClaim, own: Pick<SandboxMetadata, "name" | "slot">[] = []): Promise<number | undefined> =>
    claimSlot(
      registry,
      owner,
      own as SandboxMetadata[],
      async (slot) => void held.add(`${owner.stateDir}/${owner.sandbox}@${slot}`),
    );

  beforeEach(() => {
    dir = join(mkdtempSync(join(tmpdir(), "forage-slots-")), "slots");
    onHost = new Set();
    held = new Set();
    registry = {
      dir,
      inUseOnHost: async (slot) => onHost.has(slot),
      ownerHolds: async (c, slot) => held.has(`${c.stateDir}/${c.sandbox}@${slot}`),
    };
  });
  afterEach(() => rmSync(join(dir, ".."), { recursive: true, force: true }));

  it("gives two state directories different slots (each only knows its own sandboxes)", async () => {
    expect(await claim(a("one"))).toBe(1);
    expect(await claim(b("one"))).toBe(2);
    expect(await readClaims(dir)).toEqual(
      new Map([
        [1, a("one")],
        [2, b("one")],
      ]),
    );
  });

  it("skips a slot whose namespace already exists on the host, claimed or not", async () => {
    onHost.add(1);
    expect(await claim(a("one"))).toBe(2);
  });

  it("takes back a slot whose owner no longer has that sandbox", async () => {
    expect(await claim(a("gone"))).toBe(1);
    held.clear();
    expect(await claim(b("new"))).toBe(1);
    expect((await readClaims(dir)).get(1)).toEqual(b("new"));
  });

  it("leaves a gone owner's slot alone while its namespace still exists (its gc removes it)", async () => {
    expect(await claim(a("gone"))).toBe(1);
    held.clear();
    onHost.add(1);
    expect(await claim(b("new"))).toBe(2);
  });

  it("drops the claim when recording the sandbox fails", async () => {
    await expect(claimSlot(registry, a("one"), [], () => Promise.reject(new Error("disk full")))).rejects.toThrow(
      "disk full",
    );
    expect(existsSync(join(dir, "1"))).toBe(false);
  });

  it("answers undefined when all 254 slots are held", async () => {
    for (let slot = 1; slot <= 254; slot++) onHost.add(slot);
    expect(await claim(a("one"))).toBeUndefined();
  });

  it("claims the slots of its own sandboxes made before claims existed, so others skip them", async () => {
    expect(await claim(a("new"), [{ name: "old", slot: 1 }])).toBe(2);
    expect((await readClaims(dir)).get(1)).toEqual(a("old"));
    held.add("/var/lib/a/old@1");
    expect(await claim(b("other"))).toBe(3);
  });

  it("releases only a claim its owner still holds", async () => {
    expect(await claim(a("one"))).toBe(1);
    await releaseSlot(registry, 1, b("one"));
    expect((await readClaims(dir)).get(1)).toEqual(a("one"));
    await releaseSlot(registry, 1, a("one"));
    expect((await readClaims(dir)).has(1)).toBe(false);
  });

  it("passes a slot to another owner (a pool member's to the sandbox claiming it), recording it first, only from the holder", async () => {
    expect(await claim(a("pool-1a2b3c4d"))).toBe(1);
    const recorded: string[] = [];
    const record = async (): Promise<void> => void recorded.push(JSON.stringify((await readClaims(dir)).get(1)));
    expect(await passSlot(registry, 1, b("pool-1a2b3c4d"), a("work"), record)).toBe(false);
    expect(await passSlot(registry, 2, a("pool-1a2b3c4d"), a("work"), record)).toBe(false);
    expect(recorded).toEqual([]);
    expect(await passSlot(registry, 1, a("pool-1a2b3c4d"), a("work"), record)).toBe(true);
    // Recorded while the member still held it: the claim never names an owner without its metadata.
    expect(recorded).toEqual([JSON.stringify(a("pool-1a2b3c4d"))]);
    expect((await readClaims(dir)).get(1)).toEqual(a("work"));
  });

  it("treats an unreadable claim as an owner that is gone", async () => {
    await claim(a("one"));
    writeFileSync(join(dir, "1"), "not json");
    expect(await claim(b("two"))).toBe(1);
    expect(JSON.parse(readFileSync(join(dir, "1"), "utf8"))).toEqual(b("two"));
  });
});

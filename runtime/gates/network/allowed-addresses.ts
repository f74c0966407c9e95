import type { NftElement, NftSet, NftTableRef } from "../../../generator/emit/nft/index.js";
import type { ResolvedAddress } from "./dns/dns-filter.js";
import type { SetElementOp } from "./set-element-request.js";
import type { SetElementWriter } from "./set-element-writer.js";
import { maxTtl } from "./dns/dns-filter.js";
import { allowedSetOf, allowedSets } from "../../../generator/policy/network/policy-sets.js";

/**
 * Shortest life of an admitted address, in seconds: clients cache answers (some past their TTL)
 * and a connection opened just before a short TTL runs out must still be let through. Longer
 * TTLs get twice their length.
 */
export const admitFloorSeconds = 300;
/** Slack between an element's end and the end of a client's cache of the answer. */
const renewMarginMs = 5000;

/** A table and the writer of its sets' elements (in its namespace). */
export interface TableWriter {
  table: NftTableRef;
  writer: Pick<SetElementWriter, "run" | "warm">;
}

/** An address (with its ports) admitted to the sandbox's allowed sets, and what it was resolved for. */
export interface AdmittedAddress {
  name: string;
  /** The CNAME chain's names after `name` (a policy change judges the ports again along it). */
  chain: string[];
  ports: number[] | null;
  expiresAt: number;
  /** The end of its approval (a name admitted when asked, `--for`), which no renewal passes. */
  untilMs?: number;
}

/**
 * Keeps the sandbox's allowed sets filled with what its DNS filter resolved. An element is
 * written only when it is new (added) or would end before a client's cache of the answer (its
 * timeout renewed by add + delete + add in one nft transaction), so repeated answers mostly cost
 * no write. Each table has its long-lived writer (set-element-writer.ts); each admit resolves
 * once its own write is committed in both.
 */
export class AllowedAddresses {
  private readonly expiry = new Map<string, number>();
  private readonly admitted = new Map<string, AdmittedAddress>();

  /**
   * `host`: the host-side table, which holds. `mirror`: the in-sandbox table (defence in depth),
   * which gets the same elements, best effort: its root may have removed it, which must not fail
   * an answer.
   */
  constructor(
    private readonly host: TableWriter,
    private readonly mirror: TableWriter | null = null,
    private readonly now: () => number = Date.now,
  ) {}

  /** Starts the writers ahead of the first admission (called on the first question). */
  warm(): void {
    this.host.writer.warm();
    this.mirror?.writer.warm();
  }

  /** Writes to the in-sandbox table that failed (it was flushed inside, or the mode has no sets). */
  mirrorFailures = 0;

  /** Admits the addresses before returning; throws if the host's table refused them. `before`: ops of the same transaction, first. */
  async admit(addresses: readonly ResolvedAddress[], before: readonly SetElementOp[] = []): Promise<void> {
    const now = this.now();
    const writes = new Map<NftSet, { fresh: NftElement[]; renewed: NftElement[] }>();
    const expiries = new Map<string, number>();
    for (const resolved of addresses) {
      // Twice the TTL: an element renewed only once a client's cache of the answer could outlive
      // it still lasts a whole TTL more, so renewals are rare (once per TTL at most).
      // An approval's end caps it (rounded up: the guard deletes the element at the end itself).
      const approved = resolved.untilMs === undefined ? Infinity : Math.ceil((resolved.untilMs - now) / 1000);
      const timeout = Math.min(Math.max(2 * resolved.ttl, admitFloorSeconds), 2 * maxTtl, approved);
      if (timeout < 1) continue;
      for (const { set, value } of elementsOf(resolved)) {
        const key = `${set.name} ${String(value)}`;
        const expiresAt = this.expiry.get(key) ?? 0;
        // Rewritten only when the element would go before a client's cache of this answer does (and the write would make it last longer).
        if (
          expiries.has(key) ||
          expiresAt - now >= Math.min(resolved.ttl, maxTtl) * 1000 + renewMarginMs ||
          expiresAt >= now + timeout * 1000
        )
          continue;
        const write = writes.get(set) ?? { fresh: [], renewed: [] };
        // Only an element still there needs the (slower) delete + add; a new one is just added.
        (expiresAt > now ? write.renewed : write.fresh).push({ value, timeout });
        writes.set(set, write);
        expiries.set(key, now + timeout * 1000);
      }
      // An address the policy admits for another name on these ports stays that name's: the end of an approval that shares it must not take it away.
      const previous = this.admitted.get(resolved.address);
      if (
        resolved.untilMs !== undefined &&
        previous !== undefined &&
        previous.untilMs === undefined &&
        previous.expiresAt > now &&
        previous.name !== resolved.name &&
        coversPorts(previous.ports, resolved.ports)
      )
        continue;
      const admitted: AdmittedAddress = {
        name: resolved.name,
        chain: resolved.chain,
        ports: resolved.ports,
        expiresAt: now + timeout * 1000,
      };
      this.admitted.set(
        resolved.address,
        resolved.untilMs === undefined ? admitted : { ...admitted, untilMs: resolved.untilMs },
      );
    }
    const ops = [
      ...before,
      ...[...writes].flatMap(([set, { fresh, renewed }]) => [
        ...(fresh.length > 0 ? [add(set, fresh)] : []),
        ...(renewed.length > 0 ? renewal(set, renewed) : []),
      ]),
    ];
    if (ops.length === 0) return;
    const mirror = this.mirror;
    // The in-sandbox table drops what it does not list, so the answer waits for both writes.
    const mirrored =
      mirror === null
        ? Promise.resolve()
        : mirror.writer.run(mirror.table, ops).catch(() => void this.mirrorFailures++);
    await Promise.all([this.host.writer.run(this.host.table, ops), mirrored]);
    for (const [key, expiresAt] of expiries) this.expiry.set(key, expiresAt);
  }

  /** What an address was admitted for (for denial records), if it still is. */
  lookup(address: string): AdmittedAddress | undefined {
    const found = this.admitted.get(address);
    return found !== undefined && found.expiresAt > this.now() ? found : undefined;
  }

  /**
   * The policy changed (and the table was replaced): empties the allowed sets and writes again,
   * in one transaction, the addresses whose names the new policy still allows, for the rest of
   * their life. Clients' cached answers keep working; anything admitted under the old policy
   * after the table was replaced goes.
   */
  async readmit(
    hasSets: boolean,
    stillAllowed: (name: string, chain: readonly string[], address: string) => number[] | null | false,
  ): Promise<void> {
    this.expiry.clear();
    const now = this.now();
    const again: ResolvedAddress[] = [];
    for (const [address, admitted] of [...this.admitted]) {
      const ports = admitted.expiresAt > now ? stillAllowed(admitted.name, admitted.chain, address) : false;
      if (ports === false) {
        this.admitted.delete(address);
        continue;
      }
      const resolved: ResolvedAddress = {
        address,
        family: address.includes(":") ? 6 : 4,
        ports,
        ttl: Math.ceil((admitted.expiresAt - now) / 1000),
        name: admitted.name,
        chain: admitted.chain,
      };
      again.push(admitted.untilMs === undefined ? resolved : { ...resolved, untilMs: admitted.untilMs });
    }
    if (!hasSets) return;
    await this.admit(
      again,
      Object.values(allowedSets).map((set): SetElementOp => ({ op: "flush", set })),
    );
  }

  /**
   * Takes back what an approval admitted for `name` at `addresses` on `port`, whose time is up: the
   * elements go now (their timeouts, rounded up to whole seconds, could outlive it by a second),
   * in both tables. An address the sets hold for another name now (a shared address) stays.
   */
  async revoke(name: string, port: number, addresses: readonly string[]): Promise<void> {
    const byFamily = new Map<NftSet, NftElement[]>();
    for (const address of addresses) {
      if (this.admitted.get(address)?.name !== name) continue;
      this.admitted.delete(address);
      const set = allowedSetOf(address.includes(":") ? 6 : 4, true);
      this.expiry.delete(`${set.name} ${String([address, port])}`);
      byFamily.set(set, [...(byFamily.get(set) ?? []), { value: [address, port] }]);
    }
    if (byFamily.size === 0) return;
    // add (a no-op when present) + delete: deleting an element that already timed out would fail the transaction.
    const ops = [...byFamily].flatMap(([set, elements]): SetElementOp[] => [
      add(
        set,
        elements.map((element) => ({ ...element, timeout: 1 })),
      ),
      { op: "delete", set, elements },
    ]);
    const mirror = this.mirror;
    const mirrored =
      mirror === null
        ? Promise.resolve()
        : mirror.writer.run(mirror.table, ops).catch(() => void this.mirrorFailures++);
    await Promise.all([this.host.writer.run(this.host.table, ops), mirrored]);
  }

  /** Drops what expired from memory (the kernel drops its elements itself). */
  prune(): void {
    const now = this.now();
    for (const [key, expiresAt] of this.expiry) if (expiresAt <= now) this.expiry.delete(key);
    for (const [address, admitted] of this.admitted) if (admitted.expiresAt <= now) this.admitted.delete(address);
  }
}

function elementsOf(resolved: ResolvedAddress): { set: NftSet; value: NftElement["value"] }[] {
  if (resolved.ports === null) return [{ set: allowedSetOf(resolved.family, false), value: resolved.address }];
  return resolved.ports.map((port) => ({ set: allowedSetOf(resolved.family, true), value: [resolved.address, port] }));
}

function add(set: NftSet, elements: NftElement[]): SetElementOp {
  return { op: "add", set, elements };
}

/**
 * add (a no-op when present) + delete + add with the new timeout: an element's timeout cannot be
 * changed in place, and one transaction leaves no moment without the element.
 */
function renewal(set: NftSet, elements: NftElement[]): SetElementOp[] {
  return [add(set, elements), { op: "delete", set, elements }, add(set, elements)];
}

/** Whether an address admitted on `ports` (null: any port) is reachable on every port of `wanted`. */
function coversPorts(ports: readonly number[] | null, wanted: readonly number[] | null): boolean {
  return ports === null || (wanted !== null && wanted.every((port) => ports.includes(port)));
}

import { execa } from "execa";
import type { NftTableRef } from "../../generator/emit/nft/index.js";
import type { DenialRecord } from "./denials.js";
import { deniedSets } from "./host-policy.js";

/** A refused destination as the table recorded it. */
export interface RefusedDestination {
  address: string;
  /** "tcp", "udp", "icmp", "ipv6-icmp", or a protocol number. */
  protocol: string;
  port: number;
  packets: number;
}

/** Says which rule refused a destination, and what name its address was resolved for. */
export type DescribeRefusal = (destination: RefusedDestination) => { rule: string; name?: string };

/**
 * Turns the packet counters of the table's denied sets into denial records: a record for each
 * destination whose counter grew since the last poll, carrying how many packets it refused.
 * A table that was replaced (counters start again) is noticed by a counter going down.
 */
export class DenialPoller {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly table: NftTableRef,
    private readonly describe: DescribeRefusal,
  ) {}

  async poll(now: Date = new Date()): Promise<DenialRecord[]> {
    const destinations = (await Promise.all([deniedSets.v4.name, deniedSets.v6.name].map((set) => this.list(set)))).flat();
    const records: DenialRecord[] = [];
    for (const destination of destinations) {
      const key = `${destination.address} ${destination.protocol} ${destination.port}`;
      const before = this.seen.get(key);
      this.seen.set(key, destination.packets);
      // A new element is one refusal at least, whether or not its creating packet was counted.
      const count = before === undefined ? Math.max(destination.packets, 1) : destination.packets >= before ? destination.packets - before : destination.packets;
      if (count === 0) continue;
      const { rule, name } = this.describe(destination);
      records.push({
        time: now.toISOString(),
        kind: kindOf(destination.protocol),
        ...(name === undefined ? {} : { name }),
        address: destination.address,
        ...(destination.port === 0 ? {} : { port: destination.port }),
        rule,
        count,
      });
    }
    return records;
  }

  private async list(set: string): Promise<RefusedDestination[]> {
    const listed = await execa("nft", ["-j", "list", "set", this.table.family, this.table.name, set], { reject: false });
    if (listed.exitCode !== 0) return []; // the table is being replaced or is gone
    return parseDeniedSet(listed.stdout);
  }
}

/** Reads `nft -j list set` of a denied set: elements `{ val: { concat: [addr, proto, port] }, counter: { packets } }`. */
export function parseDeniedSet(json: string): RefusedDestination[] {
  const document = JSON.parse(json) as { nftables?: { set?: { elem?: unknown[] } }[] };
  const elements = document.nftables?.find((entry) => entry.set !== undefined)?.set?.elem ?? [];
  return elements.flatMap((entry): RefusedDestination[] => {
    const element = (entry as { elem?: { val?: { concat?: unknown[] }; counter?: { packets?: unknown } } }).elem;
    const [address, protocol, port] = element?.val?.concat ?? [];
    const packets = element?.counter?.packets;
    if (typeof address !== "string" || (typeof protocol !== "string" && typeof protocol !== "number") || typeof port !== "number" || typeof packets !== "number") return [];
    return [{ address, protocol: String(protocol), port, packets }];
  });
}

function kindOf(protocol: string): DenialRecord["kind"] {
  if (protocol === "tcp" || protocol === "udp") return protocol;
  if (protocol === "icmp" || protocol === "ipv6-icmp" || protocol === "icmpv6") return "icmp";
  return "other";
}

import { isIP } from "node:net";
import { runCommand } from "../../core/run-command.js";
import type { NftTableRef } from "../../../generator/emit/nft/index.js";
import type { DenialRecord } from "./denials.js";
import { deniedSets } from "../../../generator/policy/network/policy-sets.js";
import type { RefusedDestination as Destination } from "../../../generator/policy/network/refusal-reason.js";

/** A refused destination as the table recorded it, with the packets it refused. */
export interface RefusedDestination extends Destination {
  packets: number;
}

/** Says which rule refused a destination, and what name its address was resolved for. */
export type DescribeRefusal = (destination: RefusedDestination) => { rule: string; name?: string };

/** Destinations read per poll at most (the sets hold 4096 each). */
const maxPerPoll = 8192;

/** A table with denied sets: the host-side one, or the in-sandbox one (in the sandbox's namespace). */
export interface DeniedSource {
  table: NftTableRef;
  namespace: string | null;
}

/**
 * Turns the packet counters of the denied sets into denial records: a record for each
 * destination whose counter grew since the last poll, carrying how many packets it refused.
 * Both tables are read: the in-sandbox table refuses first what it does not allow, so the host
 * never sees those packets. A table that was replaced (counters start again) is noticed by a
 * counter going down.
 */
export class DenialPoller {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly sources: readonly DeniedSource[],
    private readonly describe: DescribeRefusal,
  ) {}

  async poll(now: Date = new Date()): Promise<DenialRecord[]> {
    const lists = this.sources.flatMap((source, index) =>
      [deniedSets.v4.name, deniedSets.v6.name].map(async (set) =>
        (await list(source, set)).map((destination) => ({ index, destination })),
      ),
    );
    const found = (await Promise.all(lists)).flat();
    const listed = new Set<string>();
    const records: DenialRecord[] = [];
    for (const { index, destination } of found.slice(0, maxPerPoll)) {
      const key = `${index} ${destination.address} ${destination.protocol} ${destination.port}`;
      listed.add(key);
      const before = this.seen.get(key);
      this.seen.set(key, destination.packets);
      // A new element is one refusal at least, whether or not its creating packet was counted.
      const count =
        before === undefined
          ? Math.max(destination.packets, 1)
          : destination.packets >= before
            ? destination.packets - before
            : destination.packets;
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
}

async function list(source: DeniedSource, set: string): Promise<RefusedDestination[]> {
  const command = ["nft", "-j", "list", "set", source.table.family, source.table.name, set];
  const argv = source.namespace === null ? command : ["nsenter", `--net=${source.namespace}`, "--", ...command];
  // The in-sandbox table is the sandbox's root's to reshape: bound what is read from it.
  const listed = await runCommand(argv[0] as string, argv.slice(1), {
    reject: false,
    maxBuffer: 2_000_000,
    timeoutMs: 5000,
  });
  if (listed.exitCode !== 0) return []; // being replaced, gone (full mode has no in-sandbox table), or flushed inside
  try {
    return parseDeniedSet(listed.stdout);
  } catch {
    return []; // the in-sandbox table is the sandbox's to change: its listing is not trusted to parse
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
    // Checked, not trusted: records end up on the user's terminal.
    if (typeof address !== "string" || isIP(address) === 0 || typeof port !== "number" || typeof packets !== "number")
      return [];
    if ((typeof protocol !== "string" || !/^[a-z0-9-]{1,16}$/.test(protocol)) && typeof protocol !== "number")
      return [];
    return [{ address, protocol: String(protocol), port, packets }];
  });
}

function kindOf(protocol: string): DenialRecord["kind"] {
  if (protocol === "tcp" || protocol === "udp") return protocol;
  if (protocol === "icmp" || protocol === "ipv6-icmp" || protocol === "icmpv6") return "icmp";
  return "other";
}

import { BlockList, isIP } from "node:net";
import { networkInterfaces } from "node:os";
import { embeddedIPv4, neverRanges, privateRanges, type SpecialRange } from "./special-ranges.js";

/**
 * Addresses a sandbox never reaches through a name, whatever the name resolves to: the host
 * itself (loopback, its own addresses), link-local (the cloud metadata service, with its
 * credentials, lives at 169.254.169.254), the sandboxes' own ranges, and every range of IANA's
 * special-purpose registries that is not globally reachable (special-ranges.ts), including the
 * IPv6 ranges that lead to IPv4 (NAT64, 6to4, Teredo, mapped). Private ranges are refused too
 * unless the config lists them (`network.admitPrivate`): otherwise a name under an allowed
 * wildcard could be pointed at the user's LAN (DNS rebinding).
 */
export class SpecialAddresses {
  private readonly never: Judged[];
  private readonly privateRanges: Judged[];
  private readonly admitted = new BlockList();

  constructor(sandboxRanges: { v4: string; v6: string }, admitPrivate: readonly string[]) {
    this.never = [
      ...neverRanges,
      { network: sandboxRanges.v4, prefix: 16, what: "a sandbox's" },
      { network: sandboxRanges.v6, prefix: 32, what: "a sandbox's" },
    ].map(judged);
    this.privateRanges = privateRanges.map(judged);
    addSubnets(
      this.admitted,
      admitPrivate.map((range): [string, number] => {
        const [network = "", prefix = ""] = range.split("/");
        return [network, Number(prefix)];
      }),
    );
  }

  /**
   * Why `address` may not be admitted for a name, or null when it may.
   *
   * @example refusal("64:ff9b::a9fe:a9fe") // "64:ff9b::a9fe:a9fe is NAT64 (64:ff9b::/96), for 169.254.169.254"
   */
  refusal(address: string): string | null {
    if (isIP(address) === 0) return "not an address";
    const never = this.never.find((range) => range.contains(address));
    if (never !== undefined) return describe(address, never);
    if (hostAddresses().has(address)) return `${address} is this host's own address`;
    const family = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (this.privateRanges.some((range) => range.contains(address)) && !this.admitted.check(address, family))
      return `${address} is private (not in network.admitPrivate)`;
    return null;
  }
}

/** A range with its own block list, so a refusal can name the range that matched. */
interface Judged extends SpecialRange {
  contains(address: string): boolean;
}

function judged(range: SpecialRange): Judged {
  const list = new BlockList();
  const family = isIP(range.network) === 6 ? "ipv6" : "ipv4";
  list.addSubnet(range.network, range.prefix, family);
  // BlockList would match an IPv4 address against an IPv4-mapped range; keep families apart.
  return {
    ...range,
    contains: (address) => (isIP(address) === 6) === (family === "ipv6") && list.check(address, family),
  };
}

function describe(address: string, range: SpecialRange): string {
  const embedded = range.embeds === undefined ? null : embeddedIPv4(address, range.embeds);
  return `${address} is ${range.what} (${range.network}/${range.prefix})${embedded === null ? "" : `, for ${embedded}`}`;
}

function addSubnets(list: BlockList, subnets: readonly (readonly [string, number])[]): void {
  for (const [network, prefix] of subnets) list.addSubnet(network, prefix, isIP(network) === 6 ? "ipv6" : "ipv4");
}

/** How long the host's own addresses are reused before being read again (interfaces come and go). */
const hostAddressesMs = 2000;
let hostAddressCache: { readAt: number; addresses: Set<string> } | undefined;

/** This host's own addresses, read at most every two seconds (getifaddrs on every answer costs). */
function hostAddresses(): Set<string> {
  const now = Date.now();
  if (hostAddressCache !== undefined && now - hostAddressCache.readAt < hostAddressesMs)
    return hostAddressCache.addresses;
  const addresses = new Set<string>();
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) addresses.add(entry.address.split("%")[0] ?? entry.address);
  }
  hostAddressCache = { readAt: now, addresses };
  return addresses;
}

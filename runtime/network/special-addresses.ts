import { BlockList, isIP } from "node:net";
import { networkInterfaces } from "node:os";

/**
 * Addresses a sandbox never reaches through a name, whatever the name resolves to: the host
 * itself (loopback, its own addresses), link-local (the cloud metadata service, with its
 * credentials, lives at 169.254.169.254), multicast and the sandboxes' own ranges. Private
 * ranges are refused too unless the config lists them (`network.admitPrivate`): otherwise a name
 * under an allowed wildcard could be pointed at the user's LAN (DNS rebinding).
 */
export class SpecialAddresses {
  private readonly never = new BlockList();
  private readonly privateRanges = new BlockList();
  private readonly admitted = new BlockList();

  constructor(sandboxRanges: { v4: string; v6: string }, admitPrivate: readonly string[]) {
    addSubnets(this.never, [
      ["0.0.0.0", 8],
      ["127.0.0.0", 8],
      ["169.254.0.0", 16],
      ["224.0.0.0", 3],
      ["::", 127],
      ["fe80::", 10],
      ["ff00::", 8],
      [sandboxRanges.v4, 16],
      [sandboxRanges.v6, 32],
    ]);
    addSubnets(this.privateRanges, [
      ["10.0.0.0", 8],
      ["172.16.0.0", 12],
      ["192.168.0.0", 16],
      ["100.64.0.0", 10],
      ["fc00::", 7],
    ]);
    addSubnets(this.admitted, admitPrivate.map((range): [string, number] => {
      const [network = "", prefix = ""] = range.split("/");
      return [network, Number(prefix)];
    }));
  }

  /** Why `address` may not be admitted for a name, or null when it may. */
  refusal(address: string): string | null {
    const family = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (isIP(address) === 0) return "not an address";
    if (this.never.check(address, family) || hostAddresses().has(address)) return `${address} is the host's, link-local, multicast or a sandbox's`;
    if (this.privateRanges.check(address, family) && !this.admitted.check(address, family)) return `${address} is private (not in network.admitPrivate)`;
    return null;
  }
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
  if (hostAddressCache !== undefined && now - hostAddressCache.readAt < hostAddressesMs) return hostAddressCache.addresses;
  const addresses = new Set<string>();
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) addresses.add(entry.address.split("%")[0] ?? entry.address);
  }
  hostAddressCache = { readAt: now, addresses };
  return addresses;
}

import { isIP } from "node:net";

/** How an IPv6 range carries an IPv4 address inside its addresses (decoded for refusal texts). */
export type EmbeddedIPv4 = "low32" | "6to4" | "teredo";

/** A special-purpose range: its network, prefix length, what it is, and any IPv4 it embeds. */
export interface SpecialRange {
  network: string;
  prefix: number;
  what: string;
  embeds?: EmbeddedIPv4;
}

/**
 * Ranges an allowed name may never resolve to, from IANA's IPv4 and IPv6 Special-Purpose Address
 * Registries (RFC 6890 and later), plus loopback and link-local. Only ranges that are not
 * globally reachable are here, and the IPv6 ranges that reach IPv4 through a translator or a
 * tunnel (NAT64, 6to4, Teredo, mapped): through them a name could lead to 169.254.169.254 or the
 * user's LAN with an address that looks like public IPv6.
 */
export const neverRanges: readonly SpecialRange[] = [
  { network: "0.0.0.0", prefix: 8, what: '"this network"' },
  { network: "127.0.0.0", prefix: 8, what: "loopback" },
  { network: "169.254.0.0", prefix: 16, what: "link-local (the cloud metadata service lives there)" },
  { network: "192.0.0.0", prefix: 24, what: "IETF protocol assignments" },
  { network: "192.0.2.0", prefix: 24, what: "documentation (TEST-NET-1)" },
  { network: "192.88.99.0", prefix: 24, what: "the deprecated 6to4 relay anycast" },
  { network: "198.18.0.0", prefix: 15, what: "benchmarking" },
  { network: "198.51.100.0", prefix: 24, what: "documentation (TEST-NET-2)" },
  { network: "203.0.113.0", prefix: 24, what: "documentation (TEST-NET-3)" },
  { network: "224.0.0.0", prefix: 4, what: "multicast" },
  { network: "240.0.0.0", prefix: 4, what: "reserved (and broadcast)" },
  { network: "::", prefix: 127, what: "unspecified or loopback" },
  { network: "::", prefix: 96, what: "IPv4-compatible (deprecated)", embeds: "low32" },
  { network: "::ffff:0:0", prefix: 96, what: "IPv4-mapped", embeds: "low32" },
  { network: "64:ff9b::", prefix: 96, what: "NAT64", embeds: "low32" },
  { network: "64:ff9b:1::", prefix: 48, what: "local-use NAT64" },
  { network: "100::", prefix: 64, what: "discard-only" },
  { network: "2001::", prefix: 32, what: "Teredo", embeds: "teredo" },
  { network: "2001:2::", prefix: 48, what: "benchmarking" },
  { network: "2001:10::", prefix: 28, what: "ORCHID" },
  { network: "2001:20::", prefix: 28, what: "ORCHIDv2" },
  { network: "2001:db8::", prefix: 32, what: "documentation" },
  { network: "2002::", prefix: 16, what: "6to4", embeds: "6to4" },
  { network: "3fff::", prefix: 20, what: "documentation" },
  { network: "5f00::", prefix: 16, what: "segment routing (SRv6) SIDs" },
  { network: "fe80::", prefix: 10, what: "link-local" },
  { network: "fec0::", prefix: 10, what: "deprecated site-local" },
  { network: "ff00::", prefix: 8, what: "multicast" },
];

/** Private ranges: refused unless `network.admitPrivate` lists them (a LAN, a VPN, CGNAT). */
export const privateRanges: readonly SpecialRange[] = [
  { network: "10.0.0.0", prefix: 8, what: "private" },
  { network: "100.64.0.0", prefix: 10, what: "shared address space (CGNAT)" },
  { network: "172.16.0.0", prefix: 12, what: "private" },
  { network: "192.168.0.0", prefix: 16, what: "private" },
  { network: "fc00::", prefix: 7, what: "unique local" },
];

/**
 * The IPv4 address an IPv6 address of `range` carries, for the refusal text, or null.
 *
 * @example embeddedIPv4("64:ff9b::a9fe:a9fe", "low32") // "169.254.169.254"
 * @example embeddedIPv4("2002:a00:1::1", "6to4") // "10.0.0.1"
 */
export function embeddedIPv4(address: string, embeds: EmbeddedIPv4): string | null {
  const groups = ipv6Groups(address);
  if (groups === null) return null;
  // 6to4 carries it right after 2002: (bits 16–47); NAT64 /96 and mapped in the low 32 bits;
  // Teredo's client address is in the low 32 bits, inverted (RFC 4380 §4).
  const [high, low] = embeds === "6to4" ? [groups[1], groups[2]] : [groups[6], groups[7]];
  const value = ((((high ?? 0) << 16) | (low ?? 0)) ^ (embeds === "teredo" ? 0xffffffff : 0)) >>> 0;
  return [24, 16, 8, 0].map((shift) => (value >>> shift) & 0xff).join(".");
}

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail allowed), or null. */
function ipv6Groups(address: string): number[] | null {
  if (isIP(address) !== 6) return null;
  let text = address.split("%")[0] ?? "";
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted !== null) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const parse = (part: string): number[] => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

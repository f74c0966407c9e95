import type { NftMatch, NftRule } from "../../emit/nft/index.js";
import { allowedSets } from "./policy-sets.js";

/**
 * IPv6 reaches nothing, not even the host end, without neighbour discovery; the kernel's
 * multicast listener reports are link-local noise, not a connection attempt. Both tables let
 * them through.
 *
 * @example icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert, nd-router-solicit, mld-listener-report, mld2-listener-report }
 */
export const neighbourDiscovery: NftMatch = {
  kind: "icmpType",
  protocol: "icmpv6",
  types: [
    "nd-neighbor-solicit",
    "nd-neighbor-advert",
    "nd-router-solicit",
    "mld-listener-report",
    "mld2-listener-report",
  ],
};

/** The sandbox's DNS to `address` (its host end): UDP and TCP port 53, one match list each. */
export function dnsTo(address: string): NftMatch[][] {
  return (["udp dport", "tcp dport"] as const).map((field) => [
    { kind: "addr", field: "ip daddr", value: address },
    { kind: "port", field, value: 53 },
  ]);
}

/** The API proxy on the host end (`address`, TCP `port`). */
export function proxyAt(address: string, port: number): NftMatch[] {
  return [
    { kind: "addr", field: "ip daddr", value: address },
    { kind: "port", field: "tcp dport", value: port },
  ];
}

/**
 * Accepts what the DNS filter admitted: an address in an allowed set, or address . port in a
 * `_port` set. `from` starts every rule; `ported` guards the lookups by port (the host table
 * only looks ports up for protocols that have them).
 *
 * @example
 * // iifname "ve-f7" ip daddr @allowed4 accept
 * // iifname "ve-f7" meta l4proto { tcp, udp } ip daddr . th dport @allowed4_port accept
 */
export function allowSetRules(from: readonly NftMatch[], ported: readonly NftMatch[]): NftRule[] {
  return [
    { match: [...from, { kind: "addr", field: "ip daddr", value: { set: allowedSets.v4.name } }], verdict: "accept" },
    { match: [...from, { kind: "addr", field: "ip6 daddr", value: { set: allowedSets.v6.name } }], verdict: "accept" },
    {
      match: [...from, ...ported, { kind: "concat", fields: ["ip daddr", "th dport"], set: allowedSets.v4Port.name }],
      verdict: "accept",
    },
    {
      match: [...from, ...ported, { kind: "concat", fields: ["ip6 daddr", "th dport"], set: allowedSets.v6Port.name }],
      verdict: "accept",
    },
  ];
}

import type { NftSet } from "../../emit/nft/index.js";

/**
 * The sets the DNS filter fills with the addresses it resolved for allowed names, each element
 * living for a while past the record's TTL; `_port` sets hold address . port for entries with a
 * `:port`. Declared alike in the host-side table and the in-sandbox one, which both get every
 * admitted address.
 */
export const allowedSets = {
  v4: { name: "allowed4", type: "ipv4_addr", flags: ["timeout"] },
  v6: { name: "allowed6", type: "ipv6_addr", flags: ["timeout"] },
  v4Port: { name: "allowed4_port", type: ["ipv4_addr", "inet_service"], flags: ["timeout"] },
  v6Port: { name: "allowed6_port", type: ["ipv6_addr", "inet_service"], flags: ["timeout"] },
} as const satisfies Record<string, NftSet>;

/** The allowed set an address of `family` goes to: with its ports (`name:port` entries) or without. */
export function allowedSetOf(family: 4 | 6, ported: boolean): NftSet {
  if (family === 4) return ported ? allowedSets.v4Port : allowedSets.v4;
  return ported ? allowedSets.v6Port : allowedSets.v6;
}

/**
 * What a sandbox was refused: destination . protocol . port (0 without ports), with packet
 * counters. The packet path records them itself, in the host-side table and in the in-sandbox
 * one alike; the guard polls them into denial records (`forage-ctl denials`).
 */
export const deniedSets = {
  v4: {
    name: "denied4",
    type: ["ipv4_addr", "inet_proto", "inet_service"],
    flags: ["dynamic", "timeout"],
    timeout: 3600,
    size: 4096,
    counter: true,
  },
  v6: {
    name: "denied6",
    type: ["ipv6_addr", "inet_proto", "inet_service"],
    flags: ["dynamic", "timeout"],
    timeout: 3600,
    size: 4096,
    counter: true,
  },
} as const satisfies Record<string, NftSet>;

import type { NftMatch, NftRule } from "../../emit/nft/index.js";
import { deniedSets } from "./policy-sets.js";

/**
 * The closing refusals of a chain: each packet is recorded in the denied sets, then refused
 * with a TCP reset or ICMP admin-prohibited, so tools fail at once instead of timing out.
 * Recording and refusing are separate rules: a set update that fails (the set is full) only
 * ends its own rule, and the refusal still follows.
 *
 * @example
 * // meta nfproto ipv4 meta l4proto { tcp, udp } update @denied4 { ip daddr . meta l4proto . th dport } continue
 * // …
 * // meta l4proto tcp counter reject with tcp reset
 * // counter reject with icmpx type admin-prohibited
 */
export function refuseRules(match: readonly NftMatch[] = []): NftRule[] {
  const rules: NftRule[] = [];
  for (const [family, address, set] of [
    ["ipv4", "ip daddr", deniedSets.v4.name],
    ["ipv6", "ip6 daddr", deniedSets.v6.name],
  ] as const) {
    const is: NftMatch[] = [...match, { kind: "nfproto", value: family }];
    rules.push(
      {
        match: [...is, { kind: "l4proto", value: ["tcp", "udp"] }],
        update: { set, key: [address, "meta l4proto", "th dport"] },
        verdict: "continue",
      },
      {
        match: [...is, { kind: "l4proto", op: "!=", value: ["tcp", "udp"] }],
        update: { set, key: [address, "meta l4proto", 0] },
        verdict: "continue",
      },
    );
  }
  rules.push(
    { match: [...match, { kind: "l4proto", value: "tcp" }], counter: true, verdict: { reject: "tcp-reset" } },
    { match: [...match], counter: true, verdict: { reject: "admin-prohibited" } },
  );
  return rules;
}

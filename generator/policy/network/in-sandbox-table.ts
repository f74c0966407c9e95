import type { NftChain, NftRule, NftTable, NftTableRef } from "../../emit/nft/index.js";
import type { NetworkMode } from "../../model/model.js";
import { allowSetRules, dnsTo, neighbourDiscovery, proxyAt } from "./common-rules.js";
import { allowedSets, deniedSets } from "./policy-sets.js";
import { refuseRules } from "./refuse-rules.js";

/** The in-sandbox table, `inet forage` in the sandbox's own namespace (the host-side ones are `forage_f<N>`). */
export const inSandboxTableRef: NftTableRef = { family: "inet", name: "forage" };

/**
 * The in-sandbox table for a mode ("none" or "restricted"; "full" has none): the generated
 * `templates/<name>.nft` a NixOS system loads at boot, and what forage-ctl loads into a running
 * sandbox's namespace on start and on every mode change. Defence in depth only: the policy that
 * counts is enforced host-side, where root in the sandbox cannot reach it. Output is dropped
 * except loopback, replies, DNS and the API proxy on the host side, and (restricted) addresses
 * in the allowed sets, which the DNS filter fills at run time; the rest is refused so tools fail
 * at once.
 *
 * @example
 * table inet forage {
 *   set allowed4 { type ipv4_addr; flags timeout; }
 *   chain output {
 *     type filter hook output priority filter; policy drop;
 *     ct state { established, related } accept
 *     …
 */
export function inSandboxTable(
  base: string,
  mode: Exclude<NetworkMode, "full">,
  proxyPort: number | null,
  templateName: string,
): NftTable {
  const hostSide = `${base}.0.0/16`;
  const restricted = mode === "restricted";
  // Every accept comes before the refusals, so their order is free: the most frequent first (a
  // packet of a connection, then a new one to an admitted address), so most packets meet one rule.
  const rules: NftRule[] = [
    { match: [{ kind: "ctState", states: ["established", "related"] }], verdict: "accept" },
    { match: [{ kind: "iface", field: "oifname", value: "lo" }], verdict: "accept" },
    ...(restricted ? allowSetRules([], []) : []),
    { match: [neighbourDiscovery], verdict: "accept" },
    ...(restricted ? dnsTo(hostSide).map((match): NftRule => ({ match, verdict: "accept" })) : []),
    ...(proxyPort === null ? [] : [{ match: proxyAt(hostSide, proxyPort), verdict: "accept" } satisfies NftRule]),
    ...refuseRules(),
  ];
  const output: NftChain = {
    name: "output",
    base: { type: "filter", hook: "output", priority: "filter", policy: "drop" },
    rules,
  };
  return {
    ...inSandboxTableRef,
    comment: `forage template ${templateName}: network ${mode}`,
    sets: [...(restricted ? Object.values(allowedSets) : []), ...Object.values(deniedSets)],
    chains: [output],
  };
}

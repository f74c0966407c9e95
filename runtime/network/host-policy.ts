import { runCommand } from "../core/run-command.js";
import { printNftTable, type NftChain, type NftMatch, type NftRule, type NftSet, type NftTable, type NftTableRef } from "../../generator/emit/nft/index.js";
import { SandboxError } from "../core/errors.js";
import type { NetworkPolicy } from "./network-policy.js";
import type { SandboxLink } from "./sandbox-link.js";
import { deniedSets, refuseRules } from "../../generator/targets/nft-refusals.js";

export { deniedSets };

/** The host-side table of one sandbox: `inet forage_f<N>`. */
export function hostPolicyTableName(link: SandboxLink): string {
  return `forage_${link.namespace}`;
}

export function hostPolicyTableRef(link: SandboxLink): NftTableRef {
  return { family: "inet", name: hostPolicyTableName(link) };
}

/** What the sandbox's network guard serves on the host end of the link. */
export interface GuardServices {
  /** The DNS filter's port (UDP and TCP); the sandbox's port 53 to the host end is redirected to it. */
  dnsPort: number;
  /** The name gate's ports for TLS (443) and HTTP (80), used when the policy has `sni`. */
  tlsPort: number;
  httpPort: number;
}

/**
 * Sets the DNS filter fills with the addresses it resolved for allowed names, each element
 * living for the record's TTL (with a floor). `_port` sets hold address . port for entries
 * with a `:port`.
 */
export const allowedSets = {
  v4: { name: "allowed4", type: "ipv4_addr", flags: ["timeout"] },
  v6: { name: "allowed6", type: "ipv6_addr", flags: ["timeout"] },
  v4Port: { name: "allowed4_port", type: ["ipv4_addr", "inet_service"], flags: ["timeout"] },
  v6Port: { name: "allowed6_port", type: ["ipv6_addr", "inet_service"], flags: ["timeout"] },
} as const satisfies Record<string, NftSet>;

/** DNS and DNS-over-TLS: in restricted mode only the sandbox's own filter answers. */
const resolverPorts = [53, 853];

/**
 * The sandbox's policy, enforced on the host end of its veth (`ve-f<N>`), where nothing in the
 * sandbox (its root included) can list, flush or bypass it:
 * - spoofed (raw): nothing from the sandbox with a source address other than its own;
 * - prerouting: the sandbox's DNS to the host end goes to its DNS filter (and, with sni, its
 *   TCP 443 and 80 to the name gate);
 * - input: the sandbox reaches no service of the host but its guard's (replies to
 *   connections the host opened, such as ssh, still come back);
 * - forward: none lets nothing out; restricted lets out only addresses the DNS filter admitted
 *   (and no other resolver, nor QUIC with sni); full lets everything out (through `externalInterface` if set);
 *   nothing opens a connection into the sandbox through the host;
 * - postrouting: what leaves is masqueraded.
 * Refusals are resets / admin-prohibited, so tools fail at once instead of timing out, and each
 * is counted in the denied sets.
 *
 * @example
 * table inet forage_f7 {
 * 	chain forward {
 * 		type filter hook forward priority filter; policy accept;
 * 		iifname "ve-f7" ct state { established, related } accept
 * 		iifname "ve-f7" ip daddr @allowed4 accept
 * 		…
 */
export function hostPolicyTable(link: SandboxLink, policy: NetworkPolicy, services: GuardServices | null, externalInterface: string | null, proxyPort: number | null = null): NftTable {
  const from: NftMatch = { kind: "iface", field: "iifname", value: link.hostInterface };
  const to: NftMatch = { kind: "iface", field: "oifname", value: link.hostInterface };
  const replies: NftMatch = { kind: "ctState", states: ["established", "related"] };
  const restricted = policy.mode === "restricted";
  const chains: NftChain[] = [
    { name: "spoofed", base: { type: "filter", hook: "prerouting", priority: "raw", policy: "accept" }, rules: antiSpoofRules(link, from) },
    { name: "refuse", rules: refuseRules(), comment: "record what was refused, then refuse it" },
    { name: "input", base: { type: "filter", hook: "input", priority: "filter", policy: "accept" }, rules: inputRules(link, from, replies, services, restricted && policy.sni, proxyPort) },
    { name: "forward", base: { type: "filter", hook: "forward", priority: "filter", policy: "accept" }, rules: forwardRules(policy, from, to, replies, externalInterface) },
  ];
  const gated = restricted && policy.sni;
  if (services !== null) {
    const rules = [...dnsRedirect(link, from, services), ...(gated ? gateRedirect(link, from, services) : [])];
    chains.push({ name: "prerouting", base: { type: "nat", hook: "prerouting", priority: "dstnat", policy: "accept" }, rules });
  }
  if (policy.mode !== "none") {
    const masquerade: NftRule = { match: [from, { kind: "iface", field: "oifname", op: "!=", value: link.hostInterface }], verdict: { masquerade: true } };
    chains.push({ name: "postrouting", base: { type: "nat", hook: "postrouting", priority: "srcnat", policy: "accept" }, rules: [masquerade] });
  }
  return {
    family: "inet",
    name: hostPolicyTableName(link),
    comment: `forage sandbox ${link.namespace}: ${policy.mode}`,
    sets: [...(restricted ? Object.values(allowedSets) : []), ...Object.values(deniedSets)],
    chains,
  };
}

function inputRules(link: SandboxLink, from: NftMatch, replies: NftMatch, services: GuardServices | null, gated: boolean, proxyPort: number | null): NftRule[] {
  const gatePorts: NftMatch | null = services === null || !gated ? null : { kind: "port", field: "tcp dport", value: [services.tlsPort, services.httpPort] };
  const gate: NftRule[] =
    gatePorts === null
      ? []
      : [
          { match: [from, { kind: "addr", field: "ip daddr", value: link.hostAddress }, gatePorts], verdict: "accept", comment: "the sandbox's name gate (sni)" },
          { match: [from, { kind: "addr", field: "ip6 daddr", value: link.hostAddress6 }, gatePorts], verdict: "accept", comment: "the sandbox's name gate (sni)" },
        ];
  const dns: NftRule[] =
    services === null
      ? []
      : [
          {
            match: [from, { kind: "addr", field: "ip daddr", value: link.hostAddress }, { kind: "l4proto", value: ["tcp", "udp"] }, { kind: "port", field: "th dport", value: services.dnsPort }],
            verdict: "accept",
            comment: "the sandbox's DNS filter",
          },
        ];
  const toProxy: NftMatch[] =
    proxyPort === null
      ? []
      : [
          { kind: "addr", field: "ip daddr", value: link.hostAddress },
          { kind: "port", field: "tcp dport", value: proxyPort },
        ];
  const proxy: NftRule[] =
    proxyPort === null
      ? []
      : [
          { match: [from, ...toProxy], verdict: "accept", comment: "the API proxy" },
          // The proxy also checks the source; this keeps everyone else (host users included) off the listener.
          { match: [{ kind: "iface", field: "iifname", op: "!=", value: link.hostInterface }, ...toProxy], verdict: "drop", comment: "the API proxy is its sandbox's only" },
        ];
  return [
    { match: [from, replies], verdict: "accept" },
    ...proxy,
    // IPv6 needs neighbour discovery with the host end to reach anything at all (and the kernel's
    // multicast listener reports are link-local noise, not a connection attempt).
    {
      match: [from, { kind: "icmpType", protocol: "icmpv6", types: ["nd-neighbor-solicit", "nd-neighbor-advert", "nd-router-solicit", "mld-listener-report", "mld2-listener-report"] }],
      verdict: "accept",
    },
    ...dns,
    ...gate,
    { match: [from], verdict: { jump: "refuse" }, comment: "sandbox to host" },
    { match: [from], verdict: "drop" },
  ];
}

/**
 * Packets from the sandbox must come from its own addresses: otherwise the host would answer
 * (DNS filter) or forward for an address the sandbox made up, reaching anyone on its behalf.
 */
function antiSpoofRules(link: SandboxLink, from: NftMatch): NftRule[] {
  return [
    { match: [from, { kind: "addr", field: "ip saddr", op: "!=", value: link.sandboxAddress }], counter: true, verdict: "drop", comment: "not the sandbox's address" },
    { match: [from, { kind: "addr", field: "ip6 saddr", op: "!=", value: [link.sandboxAddress6, "fe80::/10"] }], counter: true, verdict: "drop", comment: "not the sandbox's address" },
  ];
}

function forwardRules(policy: NetworkPolicy, from: NftMatch, to: NftMatch, replies: NftMatch, externalInterface: string | null): NftRule[] {
  const out: NftRule[] = [];
  if (policy.mode === "restricted") {
    const ported: NftMatch = { kind: "l4proto", value: ["tcp", "udp"] };
    if (policy.sni) {
      // QUIC (HTTP/3) would carry names past the gate: refused, so clients fall back to TCP.
      out.push({ match: [from, { kind: "port", field: "udp dport", value: [80, 443] }], verdict: { jump: "refuse" }, comment: "sni: QUIC" });
    }
    out.push(
      { match: [from, ported, { kind: "port", field: "th dport", value: resolverPorts }], verdict: { jump: "refuse" }, comment: "DNS or DoT to another resolver" },
      { match: [from, { kind: "addr", field: "ip daddr", value: { set: allowedSets.v4.name } }], verdict: "accept" },
      { match: [from, { kind: "addr", field: "ip6 daddr", value: { set: allowedSets.v6.name } }], verdict: "accept" },
      { match: [from, ported, { kind: "concat", fields: ["ip daddr", "th dport"], set: allowedSets.v4Port.name }], verdict: "accept" },
      { match: [from, ported, { kind: "concat", fields: ["ip6 daddr", "th dport"], set: allowedSets.v6Port.name }], verdict: "accept" },
    );
  }
  if (policy.mode === "full") {
    const exit: NftMatch[] = externalInterface === null ? [] : [{ kind: "iface", field: "oifname", value: externalInterface }];
    out.push({ match: [from, ...exit], verdict: "accept", comment: "full: routed out" });
  }
  return [
    { match: [from, replies], verdict: "accept" },
    ...out,
    { match: [from], verdict: { jump: "refuse" }, comment: "sandbox to anywhere else" },
    { match: [from], verdict: "drop" },
    { match: [to, replies], verdict: "accept" },
    { match: [to, { kind: "l4proto", value: "tcp" }], counter: true, verdict: { reject: "tcp-reset" }, comment: "into the sandbox" },
    { match: [to], counter: true, verdict: { reject: "admin-prohibited" }, comment: "into the sandbox" },
  ];
}

function dnsRedirect(link: SandboxLink, from: NftMatch, services: GuardServices): NftRule[] {
  return (["udp dport", "tcp dport"] as const).map((field) => ({
    match: [from, { kind: "addr", field: "ip daddr", value: link.hostAddress }, { kind: "port", field, value: 53 }],
    verdict: { redirect: services.dnsPort },
  }));
}

/** With `sni`, the sandbox's TCP 443 and 80 (to anywhere) go to the guard's name gate, on either family. */
function gateRedirect(link: SandboxLink, from: NftMatch, services: GuardServices): NftRule[] {
  return (
    [
      [443, services.tlsPort],
      [80, services.httpPort],
    ] as const
  ).flatMap(([original, port]): NftRule[] => [
    { match: [from, { kind: "nfproto", value: "ipv4" }, { kind: "port", field: "tcp dport", value: original }], verdict: { dnat: { family: "ip", address: link.hostAddress, port } } },
    { match: [from, { kind: "nfproto", value: "ipv6" }, { kind: "port", field: "tcp dport", value: original }], verdict: { dnat: { family: "ip6", address: link.hostAddress6, port } } },
  ]);
}

/** Loads (or atomically replaces) the sandbox's host-side table. */
export async function applyHostPolicy(link: SandboxLink, policy: NetworkPolicy, services: GuardServices | null, externalInterface: string | null, proxyPort: number | null): Promise<void> {
  const loaded = await runCommand("nft", ["-f", "-"], { input: printNftTable(hostPolicyTable(link, policy, services, externalInterface, proxyPort), { replace: true }), reject: false });
  if (loaded.exitCode !== 0) throw new SandboxError(`could not load the network policy of ${link.namespace}: ${loaded.stderr.trim()} (is nftables installed?)`, "container");
}

/** Removes the sandbox's host-side table; absent is fine. */
export async function removeHostPolicy(link: SandboxLink): Promise<void> {
  await runCommand("nft", ["delete", "table", "inet", hostPolicyTableName(link)], { reject: false });
}

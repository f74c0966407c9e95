import type { NftChain, NftMatch, NftRule, NftTable, NftTableRef } from "../../emit/nft/index.js";
import type { NetworkMode } from "../../model/model.js";
import { allowSetRules, dnsTo, neighbourDiscovery, proxyAt } from "./common-rules.js";
import { namedRefusalRules } from "./named-refusals.js";
import type { PolicyRules } from "./policy-rules.js";
import { allowedSets, deniedSets } from "./policy-sets.js";
import { refuseRules } from "./refuse-rules.js";
import type { SandboxLink } from "./sandbox-link.js";

/** The host-side table of one sandbox: `inet forage_f<N>`. */
export function hostPolicyTableRef(link: Pick<SandboxLink, "namespace">): NftTableRef {
  return { family: "inet", name: `forage_${link.namespace}` };
}

/** What the sandbox's network guard serves on the host end of the link. */
export interface GuardServices {
  /** The DNS filter's port (UDP and TCP); the sandbox's port 53 to the host end is redirected to it. */
  dnsPort: number;
  /** The name gate's ports for TLS (443) and HTTP (80), used when the policy has `sni`. */
  tlsPort: number;
  httpPort: number;
}

/** Whether traffic leaves the sandbox through the host at all in this mode (forwarded and masqueraded). */
export function routesOut(mode: NetworkMode): boolean {
  return mode !== "none";
}

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
 * is counted in the denied sets. Only `mode` and `sni` shape it: the entries are the guard's.
 *
 * @example
 * table inet forage_f7 {
 * 	chain forward {
 * 		type filter hook forward priority filter; policy accept;
 * 		ct state { established, related } accept comment "replies and connections under way"
 * 		iifname "ve-f7" ip daddr @allowed4 accept
 * 		…
 */
export function hostPolicyTable(
  link: SandboxLink,
  policy: Pick<PolicyRules, "mode" | "sni">,
  services: GuardServices | null,
  externalInterface: string | null,
  proxyPort: number | null = null,
): NftTable {
  const from: NftMatch = { kind: "iface", field: "iifname", value: link.hostInterface };
  const restricted = policy.mode === "restricted";
  const gated = restricted && policy.sni;
  const chains: NftChain[] = [
    {
      name: "spoofed",
      base: { type: "filter", hook: "prerouting", priority: "raw", policy: "accept" },
      rules: antiSpoofRules(link, from),
    },
    { name: "refuse", rules: refuseRules(), comment: "record what was refused, then refuse it" },
    {
      name: "input",
      base: { type: "filter", hook: "input", priority: "filter", policy: "accept" },
      rules: inputRules(link, from, services, gated, proxyPort),
    },
    {
      name: "forward",
      base: { type: "filter", hook: "forward", priority: "filter", policy: "accept" },
      rules: forwardRules(link, policy, from, externalInterface),
    },
  ];
  if (services !== null) {
    const rules = [...dnsRedirect(link, from, services), ...(gated ? gateRedirect(link, from, services) : [])];
    chains.push({
      name: "prerouting",
      base: { type: "nat", hook: "prerouting", priority: "dstnat", policy: "accept" },
      rules,
    });
  }
  if (routesOut(policy.mode)) {
    const masquerade: NftRule = {
      match: [from, { kind: "iface", field: "oifname", op: "!=", value: link.hostInterface }],
      verdict: { masquerade: true },
    };
    chains.push({
      name: "postrouting",
      base: { type: "nat", hook: "postrouting", priority: "srcnat", policy: "accept" },
      rules: [masquerade],
    });
  }
  return {
    ...hostPolicyTableRef(link),
    comment: `forage sandbox ${link.namespace}: ${policy.mode}`,
    sets: [...(restricted ? Object.values(allowedSets) : []), ...Object.values(deniedSets)],
    chains,
  };
}

const replies: NftMatch = { kind: "ctState", states: ["established", "related"] };

function inputRules(
  link: SandboxLink,
  from: NftMatch,
  services: GuardServices | null,
  gated: boolean,
  proxyPort: number | null,
): NftRule[] {
  const gatePorts: NftMatch | null =
    services === null || !gated
      ? null
      : { kind: "port", field: "tcp dport", value: [services.tlsPort, services.httpPort] };
  const gate: NftRule[] =
    gatePorts === null
      ? []
      : [
          {
            match: [from, { kind: "addr", field: "ip daddr", value: link.hostAddress }, gatePorts],
            verdict: "accept",
            comment: "the sandbox's name gate (sni)",
          },
          {
            match: [from, { kind: "addr", field: "ip6 daddr", value: link.hostAddress6 }, gatePorts],
            verdict: "accept",
            comment: "the sandbox's name gate (sni)",
          },
        ];
  const toFilter: NftMatch[] =
    services === null
      ? []
      : [
          { kind: "addr", field: "ip daddr", value: link.hostAddress },
          { kind: "l4proto", value: ["tcp", "udp"] },
          { kind: "port", field: "th dport", value: services.dnsPort },
        ];
  const dns: NftRule[] =
    services === null ? [] : [{ match: [from, ...toFilter], verdict: "accept", comment: "the sandbox's DNS filter" }];
  const toProxy = proxyPort === null ? null : proxyAt(link.hostAddress, proxyPort);
  const proxy: NftRule[] =
    toProxy === null
      ? []
      : [
          { match: [from, ...toProxy], verdict: "accept", comment: "the API proxy" },
          // The proxy also checks the source; this keeps everyone else (host users included) off the listener.
          {
            match: [{ kind: "iface", field: "iifname", op: "!=", value: link.hostInterface }, ...toProxy],
            verdict: "drop",
            comment: "the API proxy is its sandbox's only",
          },
        ];
  return [
    { match: [from, replies], verdict: "accept" },
    ...proxy,
    { match: [from, neighbourDiscovery], verdict: "accept" },
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
    {
      match: [from, { kind: "addr", field: "ip saddr", op: "!=", value: link.sandboxAddress }],
      counter: true,
      verdict: "drop",
      comment: "not the sandbox's address",
    },
    {
      match: [from, { kind: "addr", field: "ip6 saddr", op: "!=", value: [link.sandboxAddress6, "fe80::/10"] }],
      counter: true,
      verdict: "drop",
      comment: "not the sandbox's address",
    },
  ];
}

function forwardRules(
  link: SandboxLink,
  policy: Pick<PolicyRules, "mode" | "sni">,
  from: NftMatch,
  externalInterface: string | null,
): NftRule[] {
  const to: NftMatch = { kind: "iface", field: "oifname", value: link.hostInterface };
  const out: NftRule[] = [];
  if (policy.mode === "restricted")
    out.push(
      ...namedRefusalRules(policy, from),
      ...allowSetRules([from], [{ kind: "l4proto", value: ["tcp", "udp"] }]),
    );
  if (policy.mode === "full") {
    const exit: NftMatch[] =
      externalInterface === null ? [] : [{ kind: "iface", field: "oifname", value: externalInterface }];
    out.push({ match: [from, ...exit], verdict: "accept", comment: "full: routed out" });
  }
  return [
    // Whoever's connection it is, this chain accepts its packets: said first, most packets that
    // cross the host (any sandbox's, either way) meet one rule here, not the whole chain.
    { match: [replies], verdict: "accept", comment: "replies and connections under way" },
    ...out,
    { match: [from], verdict: { jump: "refuse" }, comment: "sandbox to anywhere else" },
    { match: [from], verdict: "drop" },
    {
      match: [to, { kind: "l4proto", value: "tcp" }],
      counter: true,
      verdict: { reject: "tcp-reset" },
      comment: "into the sandbox",
    },
    { match: [to], counter: true, verdict: { reject: "admin-prohibited" }, comment: "into the sandbox" },
  ];
}

function dnsRedirect(link: SandboxLink, from: NftMatch, services: GuardServices): NftRule[] {
  return dnsTo(link.hostAddress).map((match) => ({ match: [from, ...match], verdict: { redirect: services.dnsPort } }));
}

/** With `sni`, the sandbox's TCP 443 and 80 (to anywhere) go to the guard's name gate, on either family. */
function gateRedirect(link: SandboxLink, from: NftMatch, services: GuardServices): NftRule[] {
  return (
    [
      [443, services.tlsPort],
      [80, services.httpPort],
    ] as const
  ).flatMap(([original, port]): NftRule[] => [
    {
      match: [from, { kind: "nfproto", value: "ipv4" }, { kind: "port", field: "tcp dport", value: original }],
      verdict: { dnat: { family: "ip", address: link.hostAddress, port } },
    },
    {
      match: [from, { kind: "nfproto", value: "ipv6" }, { kind: "port", field: "tcp dport", value: original }],
      verdict: { dnat: { family: "ip6", address: link.hostAddress6, port } },
    },
  ]);
}

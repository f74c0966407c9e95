import { renderNftFile, type NftChain, type NftRule, type NftTable } from "../emit/nft/index.js";
import type { Model, NetworkMode, TemplateModel } from "../model/model.js";
import type { GeneratedFile } from "./generated-file.js";
import { deniedSets, refuseRules } from "./nft-refusals.js";

/** Name of the in-container table; the host-side per-sandbox tables are named differently. */
export const inContainerTableName = "forage";

/** Sets the DNS filter fills with resolved addresses (element timeout = record TTL). */
export const allowSets = {
  v4: "allowed4",
  v6: "allowed6",
  v4Port: "allowed4_port",
  v6Port: "allowed6_port",
} as const;

/** `claude.nft` for "none"/"restricted" templates; null for "full" (nothing to enforce inside). */
export function templateNftFileName(template: TemplateModel): string | null {
  return template.network.mode === "full" ? null : `${template.name}.nft`;
}

/**
 * `templates/<name>.nft`: the in-container table. Defence in depth only: the policy that counts
 * is enforced host-side, where root in the sandbox cannot reach it. Output is dropped except
 * loopback, replies, DNS and the API proxy on the host side, and (restricted) addresses in the
 * allow sets, which the DNS filter fills at run time; the rest is rejected so tools fail at once.
 *
 * @example
 * table inet forage {
 *   set allowed4 { type ipv4_addr; flags timeout; }
 *   chain output {
 *     type filter hook output priority filter; policy drop;
 *     oifname "lo" accept
 *     …
 */
export function nftablesFiles(model: Model): GeneratedFile[] {
  return model.templates.flatMap((template) => {
    const file = templateNftFileName(template);
    const mode = template.network.mode;
    if (file === null || mode === "full") return [];
    return [
      { path: `templates/${file}`, contents: renderNftFile(model.source, [inContainerTable(model.host.network.base, mode, templateProxyPort(model, template), template.name)], { replace: true }) },
    ];
  });
}

/** The API proxy port a template's sandboxes reach on their host end, or null when no agent of it is behind the proxy. */
export function templateProxyPort(model: Pick<Model, "host">, template: TemplateModel): number | null {
  return template.agents.some((agent) => agent.auth !== "wrapper") ? model.host.proxy.port : null;
}

/**
 * The in-container table for a mode ("none" or "restricted"); forage-ctl also loads it into a
 * running sandbox's namespace when its mode changes, and the DNS filter fills its allow sets.
 */
export function inContainerTable(base: string, mode: Exclude<NetworkMode, "full">, proxyPort: number | null, templateName: string): NftTable {
  const hostSide = `${base}.0.0/16`;
  const restricted = mode === "restricted";
  const rules: NftRule[] = [
    { match: [{ kind: "iface", field: "oifname", value: "lo" }], verdict: "accept" },
    { match: [{ kind: "ctState", states: ["established", "related"] }], verdict: "accept" },
    // IPv6 reaches nothing, not even the host end, without neighbour discovery; MLD reports are link-local noise.
    { match: [{ kind: "icmpType", protocol: "icmpv6", types: ["nd-neighbor-solicit", "nd-neighbor-advert", "nd-router-solicit", "mld-listener-report", "mld2-listener-report"] }], verdict: "accept" },
    ...(restricted ? dnsRules(hostSide) : []),
    ...(proxyPort === null ? [] : [proxyRule(hostSide, proxyPort)]),
    ...(restricted ? allowSetRules() : []),
    ...refuseRules(),
  ];
  const output: NftChain = { name: "output", base: { type: "filter", hook: "output", priority: "filter", policy: "drop" }, rules };
  return {
    family: "inet",
    name: inContainerTableName,
    comment: `forage template ${templateName}: network ${mode}`,
    sets: [...(restricted ? allowSetDeclarations() : []), ...Object.values(deniedSets)],
    chains: [output],
  };
}

function dnsRules(hostSide: string): NftRule[] {
  return (["udp dport", "tcp dport"] as const).map((field) => ({
    match: [
      { kind: "addr", field: "ip daddr", value: hostSide },
      { kind: "port", field, value: 53 },
    ],
    verdict: "accept",
  }));
}

function proxyRule(hostSide: string, port: number): NftRule {
  return {
    match: [
      { kind: "addr", field: "ip daddr", value: hostSide },
      { kind: "port", field: "tcp dport", value: port },
    ],
    verdict: "accept",
  };
}

function allowSetRules(): NftRule[] {
  return [
    { match: [{ kind: "addr", field: "ip daddr", value: { set: allowSets.v4 } }], verdict: "accept" },
    { match: [{ kind: "addr", field: "ip6 daddr", value: { set: allowSets.v6 } }], verdict: "accept" },
    { match: [{ kind: "concat", fields: ["ip daddr", "th dport"], set: allowSets.v4Port }], verdict: "accept" },
    { match: [{ kind: "concat", fields: ["ip6 daddr", "th dport"], set: allowSets.v6Port }], verdict: "accept" },
  ];
}

function allowSetDeclarations(): NftTable["sets"] {
  return [
    { name: allowSets.v4, type: "ipv4_addr", flags: ["timeout"] },
    { name: allowSets.v6, type: "ipv6_addr", flags: ["timeout"] },
    { name: allowSets.v4Port, type: ["ipv4_addr", "inet_service"], flags: ["timeout"] },
    { name: allowSets.v6Port, type: ["ipv6_addr", "inet_service"], flags: ["timeout"] },
  ];
}

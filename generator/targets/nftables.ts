import { renderNftFile, type NftChain, type NftRule, type NftTable } from "../emit/nft/index.js";
import type { Model, TemplateModel } from "../model/model.js";
import type { GeneratedFile } from "./generated-file.js";

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
    if (file === null) return [];
    return [{ path: `templates/${file}`, contents: renderNftFile(model.source, [inContainerTable(model, template)], { replace: true }) }];
  });
}

function inContainerTable(model: Model, template: TemplateModel): NftTable {
  const hostSide = `${model.host.network.base}.0.0/16`;
  const restricted = template.network.mode === "restricted";
  const rules: NftRule[] = [
    { match: [{ kind: "iface", field: "oifname", value: "lo" }], verdict: "accept" },
    { match: [{ kind: "ctState", states: ["established", "related"] }], verdict: "accept" },
    ...(restricted ? dnsRules(hostSide) : []),
    ...(template.useProxy || model.host.proxy.enable ? [proxyRule(hostSide, model.host.proxy.port)] : []),
    ...(restricted ? allowSetRules() : []),
    { match: [{ kind: "l4proto", value: "tcp" }], counter: true, verdict: { reject: "tcp-reset" } },
    { match: [], counter: true, verdict: { reject: "admin-prohibited" } },
  ];
  const output: NftChain = { name: "output", base: { type: "filter", hook: "output", priority: "filter", policy: "drop" }, rules };
  return {
    family: "inet",
    name: inContainerTableName,
    comment: `forage template ${template.name}: network ${template.network.mode}`,
    sets: restricted ? allowSetDeclarations() : [],
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

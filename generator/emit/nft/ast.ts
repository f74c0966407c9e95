/**
 * Typed nftables AST: plain data that `printNftTable` turns into nft's own list-ruleset syntax.
 *
 * Only what packet filtering for sandboxes needs is modelled; every union is closed so the
 * validator can check each value, and new match or verdict kinds are added as new union members.
 *
 * @example
 * ```ts
 * const table: NftTable = {
 *   family: "inet", name: "forage", sets: [],
 *   chains: [{ name: "output", base: { type: "filter", hook: "output", priority: "filter", policy: "drop" },
 *     rules: [{ match: [{ kind: "iface", field: "oifname", value: "lo" }], verdict: "accept" }] }],
 * };
 * // table inet forage {
 * // 	chain output {
 * // 		type filter hook output priority filter; policy drop;
 * // 		oifname "lo" accept
 * // 	}
 * // }
 * ```
 */

/** Address family of a table: `table <family> <name>`. */
export type NftFamily = "inet" | "ip" | "ip6" | "bridge" | "netdev";

/** Element type of a named set: `type ipv4_addr` or a concatenation `ipv4_addr . inet_service`. */
export type NftDataType = "ipv4_addr" | "ipv6_addr" | "inet_service" | "inet_proto" | "ifname" | "mark";

/** Set flags, printed comma-separated in this canonical order: `flags interval,timeout`. */
export type NftSetFlag = "constant" | "interval" | "timeout" | "dynamic";

/**
 * Layer-4 protocol names. `icmpv6` is printed as the nft keyword (listed back as `ipv6-icmp`)
 * because the keyword needs no `/etc/protocols` lookup, which minimal containers may lack.
 */
export type NftL4Proto = "tcp" | "udp" | "icmp" | "icmpv6";

/** Connection-tracking states: `ct state { established, related }`. */
export type NftCtState = "new" | "established" | "related" | "invalid" | "untracked";

/** `icmp type` names nft knows. */
export type NftIcmpType =
  | "echo-reply"
  | "destination-unreachable"
  | "source-quench"
  | "redirect"
  | "echo-request"
  | "router-advertisement"
  | "router-solicitation"
  | "time-exceeded"
  | "parameter-problem"
  | "timestamp-request"
  | "timestamp-reply"
  | "info-request"
  | "info-reply"
  | "address-mask-request"
  | "address-mask-reply";

/** `icmpv6 type` names nft knows (aliases such as `mld-listener-reduction` left out). */
export type NftIcmpv6Type =
  | "destination-unreachable"
  | "packet-too-big"
  | "time-exceeded"
  | "parameter-problem"
  | "echo-request"
  | "echo-reply"
  | "mld-listener-query"
  | "mld-listener-report"
  | "mld-listener-done"
  | "nd-router-solicit"
  | "nd-router-advert"
  | "nd-neighbor-solicit"
  | "nd-neighbor-advert"
  | "nd-redirect"
  | "router-renumbering"
  | "ind-neighbor-solicit"
  | "ind-neighbor-advert"
  | "mld2-listener-report";

/** One value of a set element: an address or CIDR, a port, a protocol, an ifname or a mark. */
export type NftElementAtom = string | number;

/** A set element value; an array is a concatenation printed `1.2.3.4 . 443`. */
export type NftElementValue = NftElementAtom | readonly NftElementAtom[];

/** A set element with an optional per-element timeout in seconds: `1.2.3.4 timeout 60s`. */
export interface NftElement {
  readonly value: NftElementValue;
  readonly timeout?: number;
}

/** A named set: `set allowed4 { type ipv4_addr; flags timeout; }`. Durations are seconds. */
export interface NftSet {
  readonly name: string;
  readonly type: NftDataType | readonly NftDataType[];
  readonly flags?: readonly NftSetFlag[];
  readonly timeout?: number;
  readonly gcInterval?: number;
  readonly size?: number;
  readonly elements?: readonly NftElement[];
  /** Per-element packet and byte counters (`counter`), read back with `nft -j list set`. */
  readonly counter?: boolean;
  readonly comment?: string;
}

/**
 * Records the packet's key in a dynamic set: `update @denied4 { ip daddr . meta l4proto . th dport }`.
 * A number is a constant `inet_service` field (e.g. 0 for protocols without ports).
 */
export interface NftSetUpdate {
  readonly set: string;
  readonly key: readonly (NftConcatField | number)[];
}

/** Reference to a named set of the same table, printed `@name`. */
export interface NftSetRef {
  readonly set: string;
}

/** Relational operator; `==` is implicit in nft's listing style and printed as nothing. */
export type NftOp = "==" | "!=";

/** `iifname "ve-f1"`, `oifname != { "lo", "eth0" }`, `iifname @ifaces`. */
export interface NftIfaceMatch {
  readonly kind: "iface";
  readonly field: "iifname" | "oifname";
  readonly op?: NftOp;
  readonly value: string | readonly string[] | NftSetRef;
}

/** `ct state { established, related }`. */
export interface NftCtStateMatch {
  readonly kind: "ctState";
  readonly op?: NftOp;
  readonly states: readonly NftCtState[];
}

/** `meta l4proto tcp`, `meta l4proto { tcp, udp }`. */
export interface NftL4ProtoMatch {
  readonly kind: "l4proto";
  readonly op?: NftOp;
  readonly value: NftL4Proto | readonly NftL4Proto[] | NftSetRef;
}

/** `meta nfproto ipv6` (inet tables only). */
export interface NftNfProtoMatch {
  readonly kind: "nfproto";
  readonly value: "ipv4" | "ipv6";
}

/** Address selectors. */
export type NftAddrField = "ip saddr" | "ip daddr" | "ip6 saddr" | "ip6 daddr";

/** `ip daddr 10.0.0.0/8`, `ip6 daddr != { fd00::1, fd00::2 }`, `ip daddr @allowed4`. */
export interface NftAddrMatch {
  readonly kind: "addr";
  readonly field: NftAddrField;
  readonly op?: NftOp;
  readonly value: string | readonly string[] | NftSetRef;
}

/** Port selectors; `th` is any transport header with ports. */
export type NftPortField = "tcp dport" | "tcp sport" | "udp dport" | "udp sport" | "th dport" | "th sport";

/** An inclusive port range, printed `1000-2000`. */
export interface NftPortRange {
  readonly range: readonly [number, number];
}

/** A single port or an inclusive range. */
export type NftPortValue = number | NftPortRange;

/** `tcp dport 443`, `udp dport { 53, 5353 }`, `tcp dport 1000-2000`, `tcp dport @ports`. */
export interface NftPortMatch {
  readonly kind: "port";
  readonly field: NftPortField;
  readonly op?: NftOp;
  readonly value: NftPortValue | readonly NftPortValue[] | NftSetRef;
}

/** Fields that can be joined into a concatenated set lookup. */
export type NftConcatField = NftAddrField | NftPortField | "meta l4proto" | "iifname" | "oifname" | "meta mark";

/** `ip daddr . tcp dport @allowed4_tcp`: the field types must equal the set's type. */
export interface NftConcatMatch {
  readonly kind: "concat";
  readonly fields: readonly NftConcatField[];
  readonly op?: NftOp;
  readonly set: string;
}

/** `icmp type { echo-request, echo-reply }`. */
export interface NftIcmpMatch {
  readonly kind: "icmpType";
  readonly protocol: "icmp";
  readonly types: readonly NftIcmpType[];
}

/** `icmpv6 type { nd-neighbor-solicit, nd-neighbor-advert }`. */
export interface NftIcmpv6Match {
  readonly kind: "icmpType";
  readonly protocol: "icmpv6";
  readonly types: readonly NftIcmpv6Type[];
}

/** `meta mark 0x00000001`. */
export interface NftMarkMatch {
  readonly kind: "mark";
  readonly op?: NftOp;
  readonly value: number | NftSetRef;
}

/** One match expression of a rule; all of a rule's matches must hold. */
export type NftMatch =
  | NftIfaceMatch
  | NftCtStateMatch
  | NftL4ProtoMatch
  | NftNfProtoMatch
  | NftAddrMatch
  | NftPortMatch
  | NftConcatMatch
  | NftIcmpMatch
  | NftIcmpv6Match
  | NftMarkMatch;

/** Reject flavours: `reject with tcp reset`, `reject with icmpx type admin-prohibited`, … */
export type NftRejectKind = "tcp-reset" | "admin-prohibited" | "port-unreachable" | "default";

/** Destination NAT target: `dnat ip to 10.0.0.2:8080`, `dnat ip6 to [fd00::2]:8080`. */
export interface NftDnatTarget {
  readonly family: "ip" | "ip6";
  readonly address: string;
  readonly port?: number;
}

/** What happens to a packet that matches a rule. */
export type NftVerdict =
  | "accept"
  | "drop"
  | "return"
  /** Go on with the next rule: for rules that only record (a counter, a set update). */
  | "continue"
  | { readonly reject: NftRejectKind }
  | { readonly jump: string }
  | { readonly goto: string }
  | { readonly redirect: number }
  | { readonly dnat: NftDnatTarget }
  | { readonly masquerade: true };

/** Syslog levels for `log level`; `audit` is left out because it forbids a prefix. */
export type NftLogLevel = "emerg" | "alert" | "crit" | "err" | "warn" | "notice" | "info" | "debug";

/** `log prefix "forage-deny f1: " group 1` (group and level are mutually exclusive). */
export interface NftLog {
  readonly prefix: string;
  readonly group?: number;
  readonly level?: NftLogLevel;
}

/** `<matches> [counter] [log …] [update @set { … }] <verdict> [comment "…"]`. */
export interface NftRule {
  readonly match: readonly NftMatch[];
  readonly counter?: boolean;
  readonly log?: NftLog;
  readonly update?: NftSetUpdate;
  readonly verdict: NftVerdict;
  readonly comment?: string;
}

/** Chain hooks. */
export type NftHook = "input" | "output" | "forward" | "prerouting" | "postrouting";

/** Named standard priorities. */
export type NftPriorityName = "raw" | "mangle" | "dstnat" | "filter" | "security" | "srcnat";

/** Base-chain header: `type filter hook output priority filter; policy drop;`. */
export interface NftBaseChain {
  readonly type: "filter" | "nat" | "route";
  readonly hook: NftHook;
  readonly priority: number | NftPriorityName;
  readonly policy?: "accept" | "drop";
}

/** A chain; with `base` it is attached to a netfilter hook, otherwise reached by jump/goto. */
export interface NftChain {
  readonly name: string;
  readonly base?: NftBaseChain;
  readonly rules: readonly NftRule[];
  readonly comment?: string;
}

/** A table with its sets and chains. */
export interface NftTable {
  readonly family: NftFamily;
  readonly name: string;
  readonly comment?: string;
  readonly sets: readonly NftSet[];
  readonly chains: readonly NftChain[];
}

/** Identifies a table when adding elements at run time. */
export interface NftTableRef {
  readonly family: NftFamily;
  readonly name: string;
}

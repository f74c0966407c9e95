import type {
  NftConcatField,
  NftCtState,
  NftDataType,
  NftFamily,
  NftHook,
  NftIcmpType,
  NftIcmpv6Type,
  NftL4Proto,
  NftLogLevel,
  NftPriorityName,
  NftRejectKind,
  NftSetFlag,
} from "./ast.js";

// Each vocabulary is written as an exhaustive Record so the compiler flags a word added to an
// ast.ts union but not here; the runtime list is its keys, in the order written.
function words<T extends string>(record: Record<T, true>): readonly T[] {
  return Object.keys(record) as T[];
}

/** Table families. */
export const FAMILIES = words<NftFamily>({ inet: true, ip: true, ip6: true, bridge: true, netdev: true });

/** Set element types. */
export const DATA_TYPES = words<NftDataType>({
  ipv4_addr: true,
  ipv6_addr: true,
  inet_service: true,
  inet_proto: true,
  ifname: true,
  mark: true,
});

/** Set flags in the order they are printed. */
export const SET_FLAGS = words<NftSetFlag>({ constant: true, interval: true, timeout: true, dynamic: true });

/** Layer-4 protocol names. */
export const L4_PROTOS = words<NftL4Proto>({ tcp: true, udp: true, icmp: true, icmpv6: true });

/** Conntrack states. */
export const CT_STATES = words<NftCtState>({
  new: true,
  established: true,
  related: true,
  invalid: true,
  untracked: true,
});

/** ICMP type names. */
export const ICMP_TYPES = words<NftIcmpType>({
  "echo-reply": true,
  "destination-unreachable": true,
  "source-quench": true,
  redirect: true,
  "echo-request": true,
  "router-advertisement": true,
  "router-solicitation": true,
  "time-exceeded": true,
  "parameter-problem": true,
  "timestamp-request": true,
  "timestamp-reply": true,
  "info-request": true,
  "info-reply": true,
  "address-mask-request": true,
  "address-mask-reply": true,
});

/** ICMPv6 type names. */
export const ICMPV6_TYPES = words<NftIcmpv6Type>({
  "destination-unreachable": true,
  "packet-too-big": true,
  "time-exceeded": true,
  "parameter-problem": true,
  "echo-request": true,
  "echo-reply": true,
  "mld-listener-query": true,
  "mld-listener-report": true,
  "mld-listener-done": true,
  "nd-router-solicit": true,
  "nd-router-advert": true,
  "nd-neighbor-solicit": true,
  "nd-neighbor-advert": true,
  "nd-redirect": true,
  "router-renumbering": true,
  "ind-neighbor-solicit": true,
  "ind-neighbor-advert": true,
  "mld2-listener-report": true,
});

/** Syslog levels allowed with a prefix. */
export const LOG_LEVELS = words<NftLogLevel>({
  emerg: true,
  alert: true,
  crit: true,
  err: true,
  warn: true,
  notice: true,
  info: true,
  debug: true,
});

/** Reject flavours. */
export const REJECT_KINDS = words<NftRejectKind>({
  "tcp-reset": true,
  "admin-prohibited": true,
  "port-unreachable": true,
  default: true,
});

/** Hooks. */
export const HOOKS = words<NftHook>({
  input: true,
  output: true,
  forward: true,
  prerouting: true,
  postrouting: true,
});

/** Named priorities. */
export const PRIORITY_NAMES = words<NftPriorityName>({
  raw: true,
  mangle: true,
  dstnat: true,
  filter: true,
  security: true,
  srcnat: true,
});

/** The data type each selector yields, used to type-check set lookups. */
export const FIELD_TYPES: Readonly<Record<NftConcatField, NftDataType>> = {
  "ip saddr": "ipv4_addr",
  "ip daddr": "ipv4_addr",
  "ip6 saddr": "ipv6_addr",
  "ip6 daddr": "ipv6_addr",
  "tcp dport": "inet_service",
  "tcp sport": "inet_service",
  "udp dport": "inet_service",
  "udp sport": "inet_service",
  "th dport": "inet_service",
  "th sport": "inet_service",
  "meta l4proto": "inet_proto",
  iifname: "ifname",
  oifname: "ifname",
  "meta mark": "mark",
};

/** Selectors that may appear in a concatenation, in declaration order. */
export const CONCAT_FIELDS = Object.keys(FIELD_TYPES) as NftConcatField[];

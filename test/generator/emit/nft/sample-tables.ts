import type { NftRule, NftSet, NftTable } from "../../../../generator/emit/nft/index.js";

// Representative tables shared by the printer tests and the real-nft tests, so every text the
// unit tests pin down is also proven to load into the kernel.

const established: NftRule = { match: [{ kind: "ctState", states: ["established", "related"] }], verdict: "accept" };
const loopback: NftRule = { match: [{ kind: "iface", field: "oifname", value: "lo" }], verdict: "accept" };
const tcpReset: NftRule = { match: [{ kind: "l4proto", value: "tcp" }], verdict: { reject: "tcp-reset" } };
const prohibited: NftRule = { match: [], verdict: { reject: "admin-prohibited" } };

/** In-container table for network policy "none": only loopback and replies. */
export const noneTable: NftTable = {
  family: "inet",
  name: "forage_none",
  comment: "forage sandbox policy: none",
  sets: [],
  chains: [
    {
      name: "output",
      base: { type: "filter", hook: "output", priority: "filter", policy: "drop" },
      rules: [loopback, established, tcpReset, prohibited],
    },
  ],
};

/** A timeout set of one type. */
function timeoutSet(name: string, type: NftSet["type"]): NftSet {
  return { name, type, flags: ["timeout"] };
}

/** In-container table for policy "restricted": allowlisted addresses (filled by DNS), DNS, ICMP. */
export const restrictedTable: NftTable = {
  family: "inet",
  name: "forage_restricted",
  sets: [
    timeoutSet("allowed4", "ipv4_addr"),
    timeoutSet("allowed6", "ipv6_addr"),
    timeoutSet("allowed4_ports", ["ipv4_addr", "inet_service"]),
    timeoutSet("allowed6_ports", ["ipv6_addr", "inet_service"]),
  ],
  chains: [
    {
      name: "output",
      base: { type: "filter", hook: "output", priority: "filter", policy: "drop" },
      rules: [
        loopback,
        established,
        {
          match: [
            { kind: "addr", field: "ip daddr", value: "127.0.0.1" },
            { kind: "port", field: "udp dport", value: 53 },
          ],
          verdict: "accept",
        },
        {
          match: [
            { kind: "addr", field: "ip daddr", value: "127.0.0.1" },
            { kind: "port", field: "tcp dport", value: 53 },
          ],
          verdict: "accept",
        },
        {
          match: [
            { kind: "icmpType", protocol: "icmp", types: ["echo-request", "destination-unreachable", "time-exceeded"] },
          ],
          verdict: "accept",
        },
        {
          match: [
            {
              kind: "icmpType",
              protocol: "icmpv6",
              types: ["echo-request", "packet-too-big", "nd-neighbor-solicit", "nd-neighbor-advert"],
            },
          ],
          verdict: "accept",
        },
        { match: [{ kind: "addr", field: "ip daddr", value: { set: "allowed4" } }], verdict: "accept" },
        { match: [{ kind: "addr", field: "ip6 daddr", value: { set: "allowed6" } }], verdict: "accept" },
        { match: [{ kind: "concat", fields: ["ip daddr", "tcp dport"], set: "allowed4_ports" }], verdict: "accept" },
        { match: [{ kind: "concat", fields: ["ip6 daddr", "tcp dport"], set: "allowed6_ports" }], verdict: "accept" },
        tcpReset,
        prohibited,
      ],
    },
  ],
};

const fromSandbox = { kind: "iface", field: "iifname", value: "ve-f1" } as const;
const denyLog = { prefix: "forage-deny f1: ", group: 1 } as const;

/** Host-side table on the host end of sandbox f1's veth: forward and input filtering. */
export const hostTable: NftTable = {
  family: "inet",
  name: "forage_f1",
  comment: "forage sandbox f1 (host side)",
  sets: [
    { ...timeoutSet("allowed4", "ipv4_addr"), gcInterval: 60, size: 65535 },
    { ...timeoutSet("allowed6", "ipv6_addr"), gcInterval: 60, size: 65535 },
    timeoutSet("allowed4_ports", ["ipv4_addr", "inet_service"]),
  ],
  chains: [
    {
      name: "forward",
      base: { type: "filter", hook: "forward", priority: "filter", policy: "accept" },
      rules: [{ match: [fromSandbox], verdict: { jump: "egress" } }],
    },
    {
      name: "egress",
      comment: "traffic leaving sandbox f1",
      rules: [
        established,
        { match: [{ kind: "addr", field: "ip daddr", value: { set: "allowed4" } }], counter: true, verdict: "accept" },
        { match: [{ kind: "addr", field: "ip6 daddr", value: { set: "allowed6" } }], counter: true, verdict: "accept" },
        {
          match: [{ kind: "concat", fields: ["ip daddr", "tcp dport"], set: "allowed4_ports" }],
          counter: true,
          verdict: "accept",
        },
        { match: [{ kind: "l4proto", value: "tcp" }], counter: true, log: denyLog, verdict: { reject: "tcp-reset" } },
        { match: [], counter: true, log: denyLog, verdict: { reject: "admin-prohibited" }, comment: "deny the rest" },
      ],
    },
    {
      name: "input",
      base: { type: "filter", hook: "input", priority: -10, policy: "accept" },
      rules: [
        { match: [fromSandbox, { kind: "ctState", states: ["established", "related"] }], verdict: "accept" },
        { match: [fromSandbox, { kind: "port", field: "udp dport", value: 53 }], counter: true, verdict: "accept" },
        {
          match: [fromSandbox, { kind: "port", field: "tcp dport", value: [53, 3128] }],
          counter: true,
          verdict: "accept",
        },
        {
          match: [fromSandbox, { kind: "l4proto", value: "tcp" }],
          counter: true,
          log: denyLog,
          verdict: { reject: "tcp-reset" },
        },
        { match: [fromSandbox], counter: true, log: denyLog, verdict: { reject: "admin-prohibited" } },
      ],
    },
  ],
};

/** Exercises the remaining filter features: typed sets, ranges, negation, marks, goto, return. */
export const featureTable: NftTable = {
  family: "inet",
  name: "forage_features",
  sets: [
    {
      name: "nets4",
      type: "ipv4_addr",
      flags: ["interval"],
      elements: [{ value: "10.0.0.0/8" }, { value: "192.168.1.1" }],
    },
    { name: "nets6", type: "ipv6_addr", flags: ["interval"], elements: [{ value: "fd00::/8" }], comment: "ULA" },
    { name: "ifaces", type: "ifname", elements: [{ value: "ve-f1" }, { value: "ve-f2" }] },
    { name: "protos", type: "inet_proto", elements: [{ value: "tcp" }, { value: "icmpv6" }] },
    { name: "marks", type: "mark", elements: [{ value: 1 }, { value: 255 }] },
    {
      name: "ports",
      type: "inet_service",
      flags: ["timeout"],
      timeout: 3600,
      elements: [{ value: 443, timeout: 60 }, { value: 80 }],
    },
    { name: "proto_ports", type: ["inet_proto", "inet_service"], elements: [{ value: ["udp", 53] }] },
  ],
  chains: [
    {
      name: "prerouting",
      base: { type: "filter", hook: "prerouting", priority: "raw" },
      rules: [
        {
          match: [
            { kind: "iface", field: "iifname", op: "!=", value: ["lo", "ve-f1"] },
            { kind: "mark", value: 7 },
          ],
          verdict: { goto: "classify" },
        },
        {
          match: [
            { kind: "nfproto", value: "ipv6" },
            { kind: "l4proto", op: "!=", value: ["tcp", "udp"] },
          ],
          log: { prefix: "odd: ", level: "info" },
          verdict: "drop",
        },
      ],
    },
    {
      name: "classify",
      rules: [
        {
          match: [
            { kind: "iface", field: "iifname", value: { set: "ifaces" } },
            { kind: "l4proto", value: { set: "protos" } },
          ],
          verdict: "return",
        },
        {
          match: [
            { kind: "addr", field: "ip saddr", op: "!=", value: { set: "nets4" } },
            { kind: "addr", field: "ip daddr", value: ["10.1.0.0/16", "10.2.3.4"] },
          ],
          verdict: "drop",
        },
        {
          match: [
            { kind: "addr", field: "ip6 saddr", value: { set: "nets6" } },
            { kind: "port", field: "th dport", value: [{ range: [1000, 2000] }, 8080] },
          ],
          verdict: "accept",
        },
        {
          match: [
            { kind: "port", field: "tcp sport", op: "!=", value: { set: "ports" } },
            { kind: "mark", op: "!=", value: { set: "marks" } },
          ],
          verdict: "drop",
        },
        {
          match: [
            { kind: "concat", fields: ["meta l4proto", "th dport"], set: "proto_ports" },
            { kind: "ctState", op: "!=", states: ["invalid"] },
          ],
          verdict: "accept",
        },
        {
          match: [{ kind: "port", field: "udp sport", value: { range: [0, 1023] } }],
          verdict: { reject: "port-unreachable" },
        },
        { match: [], verdict: { reject: "default" } },
      ],
    },
  ],
};

/** NAT verdicts in an inet table. */
export const natTable: NftTable = {
  family: "inet",
  name: "forage_nat",
  sets: [],
  chains: [
    {
      name: "prerouting",
      base: { type: "nat", hook: "prerouting", priority: "dstnat" },
      rules: [
        {
          match: [{ kind: "port", field: "tcp dport", value: 80 }],
          verdict: { dnat: { family: "ip", address: "10.100.1.2", port: 8080 } },
        },
        {
          match: [{ kind: "port", field: "tcp dport", value: 81 }],
          verdict: { dnat: { family: "ip6", address: "fd00::2", port: 8080 } },
        },
        {
          match: [{ kind: "addr", field: "ip daddr", value: "10.100.1.1" }],
          verdict: { dnat: { family: "ip", address: "10.100.1.2" } },
        },
        {
          match: [
            { kind: "l4proto", value: ["tcp", "udp"] },
            { kind: "port", field: "th dport", value: 53 },
          ],
          verdict: { redirect: 5353 },
        },
      ],
    },
    {
      name: "postrouting",
      base: { type: "nat", hook: "postrouting", priority: "srcnat" },
      rules: [{ match: [{ kind: "iface", field: "oifname", value: "eth0" }], verdict: { masquerade: true } }],
    },
  ],
};

/** Every sample, for tests that treat them alike. */
export const allSamples: readonly NftTable[] = [noneTable, restrictedTable, hostTable, featureTable, natTable];

import { describe, expect, it } from "vitest";
import {
  validateNftTable,
  type NftChain,
  type NftRule,
  type NftSet,
  type NftTable,
} from "../../../../generator/emit/nft/index.js";

const sets: NftSet[] = [
  { name: "allowed4", type: "ipv4_addr", flags: ["timeout"] },
  { name: "allowed4_ports", type: ["ipv4_addr", "inet_service"], flags: ["timeout"] },
];

/** An inet table with the sets above, a base chain `out` holding `rule`, and any `extra` chains. */
function tableWith(rule: NftRule, extra: NftChain[] = [], family: NftTable["family"] = "inet"): NftTable {
  const out: NftChain = { name: "egress", base: { type: "filter", hook: "output", priority: 0 }, rules: [rule] };
  return { family, name: "t", sets, chains: [out, ...extra] };
}

describe("validateNftTable: references", () => {
  it("rejects a reference to an undeclared set, listing the declared ones", () => {
    const rule: NftRule = { match: [{ kind: "addr", field: "ip daddr", value: { set: "absent" } }], verdict: "accept" };
    expect(() => validateNftTable(tableWith(rule))).toThrow(
      'table.chains[0].rules[0].match[0].value.set: "absent" is not allowed; expected a set declared in table t (declared: allowed4, allowed4_ports)',
    );
  });

  it("rejects a set lookup whose set has another type", () => {
    const rule: NftRule = {
      match: [{ kind: "addr", field: "ip6 daddr", value: { set: "allowed4" } }],
      verdict: "accept",
    };
    expect(() => validateNftTable(tableWith(rule))).toThrow(
      /expected a set of type ipv6_addr, but set allowed4 has type ipv4_addr/,
    );
  });

  it("rejects a concatenated lookup whose fields do not match the set's concatenation", () => {
    const rule: NftRule = {
      match: [{ kind: "concat", fields: ["ip daddr", "meta mark"], set: "allowed4_ports" }],
      verdict: "accept",
    };
    expect(() => validateNftTable(tableWith(rule))).toThrow(
      /expected a set of type ipv4_addr \. mark, but set allowed4_ports/,
    );
  });

  it("rejects a jump to a chain that does not exist", () => {
    expect(() => validateNftTable(tableWith({ match: [], verdict: { jump: "nowhere" } }))).toThrow(
      /verdict\.jump: "nowhere" is not allowed; expected a chain declared in table t \(declared: egress\)/,
    );
  });

  it("rejects a goto to a base chain", () => {
    const other: NftChain = { name: "inbound", base: { type: "filter", hook: "input", priority: 0 }, rules: [] };
    expect(() => validateNftTable(tableWith({ match: [], verdict: { goto: "inbound" } }, [other]))).toThrow(
      /verdict\.goto: "inbound" is not allowed; expected a regular chain/,
    );
  });

  it("rejects jumps that form a loop, naming the loop", () => {
    const a: NftChain = { name: "a", rules: [{ match: [], verdict: { jump: "b" } }] };
    const b: NftChain = { name: "b", rules: [{ match: [], verdict: { goto: "a" } }] };
    expect(() => validateNftTable(tableWith({ match: [], verdict: { jump: "a" } }, [a, b]))).toThrow(
      /table\.chains\[2\]\.rules\[0\]\.verdict\.goto: "a" is not allowed; expected a chain that does not lead back here \(loop a -> b -> a\)/,
    );
  });
});

describe("validateNftTable: verdicts and statements", () => {
  it("rejects reject with tcp reset in a rule that does not match tcp", () => {
    const rule: NftRule = {
      match: [{ kind: "port", field: "udp dport", value: 53 }],
      verdict: { reject: "tcp-reset" },
    };
    expect(() => validateNftTable(tableWith(rule))).toThrow(
      /verdict\.reject: "tcp-reset" is not allowed; expected tcp-reset only in a rule that matches tcp/,
    );
  });

  it("accepts reject with tcp reset after a tcp port match", () => {
    const rule: NftRule = {
      match: [{ kind: "port", field: "tcp dport", value: 22 }],
      verdict: { reject: "tcp-reset" },
    };
    expect(() => validateNftTable(tableWith(rule))).not.toThrow();
  });

  it("rejects icmpx rejects in an ip table", () => {
    expect(() => validateNftTable(tableWith({ match: [], verdict: { reject: "admin-prohibited" } }, [], "ip"))).toThrow(
      /expected tcp-reset or default in an ip table/,
    );
  });

  it("rejects a NAT port mapping in a rule without a tcp or udp match", () => {
    const rule: NftRule = { match: [{ kind: "port", field: "th dport", value: 53 }], verdict: { redirect: 5353 } };
    expect(() => validateNftTable(tableWith(rule))).toThrow(
      /verdict\.redirect: 5353 is not allowed; expected a port mapping only in a rule that matches tcp or udp/,
    );
  });

  it("rejects a dnat address of the other family and a dnat family the table cannot hold", () => {
    const wrongAddress: NftRule = { match: [], verdict: { dnat: { family: "ip", address: "fd00::1" } } };
    expect(() => validateNftTable(tableWith(wrongAddress))).toThrow(
      /verdict\.dnat\.address: "fd00::1" is not allowed; expected an IPv4 address/,
    );
    const wrongFamily: NftRule = { match: [], verdict: { dnat: { family: "ip6", address: "fd00::1" } } };
    expect(() => validateNftTable(tableWith(wrongFamily, [], "ip"))).toThrow(
      /verdict\.dnat\.family: "ip6" is not allowed; expected ip in an ip table/,
    );
  });

  it("rejects a log statement with both an nflog group and a syslog level", () => {
    const rule: NftRule = { match: [], log: { prefix: "x: ", group: 1, level: "warn" }, verdict: "drop" };
    expect(() => validateNftTable(tableWith(rule))).toThrow(
      /rules\[0\]\.log: .* expected either group \(nflog\) or level \(syslog\), not both/,
    );
  });

  it("rejects an unknown verdict", () => {
    const rule = { match: [], verdict: "continue; flush ruleset" } as unknown as NftRule;
    expect(() => validateNftTable(tableWith(rule))).toThrow(
      /verdict: "continue; flush ruleset" is not allowed; expected one of accept, drop, return/,
    );
  });

  it("rejects a named priority on a hook it does not exist for", () => {
    const table: NftTable = {
      family: "inet",
      name: "t",
      sets: [],
      chains: [{ name: "c", base: { type: "filter", hook: "output", priority: "dstnat" }, rules: [] }],
    };
    expect(() => validateNftTable(table)).toThrow(
      /base\.priority: "dstnat" is not allowed; expected a number or a name valid for hook output/,
    );
  });

  it("rejects a base chain in a netdev table and a nat chain in a bridge table", () => {
    const chain = (type: "filter" | "nat"): NftChain => ({
      name: "c",
      base: { type, hook: "forward", priority: 0 },
      rules: [],
    });
    expect(() => validateNftTable({ family: "netdev", name: "t", sets: [], chains: [chain("filter")] })).toThrow(
      /netdev has only ingress\/egress/,
    );
    expect(() => validateNftTable({ family: "bridge", name: "t", sets: [], chains: [chain("nat")] })).toThrow(
      /expected filter in a bridge table/,
    );
  });
});

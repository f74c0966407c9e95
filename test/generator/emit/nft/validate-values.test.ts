import { describe, expect, it } from "vitest";
import {
  NftValidationError,
  validateNftTable,
  type NftMatch,
  type NftSet,
  type NftTable,
} from "../../../../generator/emit/nft/index.js";

/** A table with `sets` and one regular chain holding one accepting rule with `match`. */
function withMatch(match: NftMatch, sets: NftSet[] = [], family: NftTable["family"] = "inet"): NftTable {
  return { family, name: "t", sets, chains: [{ name: "c", rules: [{ match: [match], verdict: "accept" }] }] };
}

const matchPath = /table\.chains\[0\]\.rules\[0\]\.match\[0\]/;

describe("validateNftTable: addresses and ports", () => {
  it.each([
    "1.2.3.999",
    "1.2.3",
    "01.2.3.4",
    "1.2.3.4/33",
    "1.2.3.4/",
    "1.2.3.4/8/8",
    "fe80::1",
    "10.0.0.0/08",
    " 1.2.3.4",
  ])("rejects %j as an IPv4 address", (value) => {
    expect(() => validateNftTable(withMatch({ kind: "addr", field: "ip daddr", value }))).toThrow(
      /match\[0\]\.value: .* expected an IPv4 address or CIDR/,
    );
  });

  it.each(["fe80::1%eth0", 'fe80::1%a"b', "fd00::/129", "1.2.3.4", "fd00:::1"])(
    "rejects %j as an IPv6 address",
    (value) => {
      expect(() => validateNftTable(withMatch({ kind: "addr", field: "ip6 daddr", value }))).toThrow(
        NftValidationError,
      );
    },
  );

  it("rejects a CIDR with host bits set, which nft would silently mask", () => {
    expect(() => validateNftTable(withMatch({ kind: "addr", field: "ip daddr", value: "10.0.0.5/8" }))).toThrow(
      /"10\.0\.0\.5\/8" is not allowed; expected a CIDR whose address has no bits set after the prefix/,
    );
    expect(() => validateNftTable(withMatch({ kind: "addr", field: "ip6 daddr", value: "fd00::1/64" }))).toThrow(
      /no bits set/,
    );
  });

  it("accepts network CIDRs, IPv4-mapped IPv6 and prefix lengths at both ends of the range", () => {
    const values = ["0.0.0.0/0", "10.0.0.0/8", "1.2.3.4/32", "::/0", "fd00::/8", "::ffff:1.2.3.0/120", "::1/128"];
    for (const value of values) {
      const field = value.includes(":") ? "ip6 daddr" : "ip daddr";
      expect(() => validateNftTable(withMatch({ kind: "addr", field, value }))).not.toThrow();
    }
  });

  it("rejects an empty address list, for which nft has no syntax", () => {
    expect(() => validateNftTable(withMatch({ kind: "addr", field: "ip daddr", value: [] }))).toThrow(
      /expected a non-empty list/,
    );
  });

  it.each([70000, -1, 1.5, Number.NaN])("rejects the port %j", (value) => {
    expect(() => validateNftTable(withMatch({ kind: "port", field: "tcp dport", value }))).toThrow(
      /match\[0\]\.value: .* expected a port: an integer from 0 to 65535/,
    );
  });

  it("rejects a port range whose low end is not below its high end", () => {
    const match: NftMatch = { kind: "port", field: "tcp dport", value: { range: [2000, 1000] } };
    expect(() => validateNftTable(withMatch(match))).toThrow(/value\.range: \[2000,1000\] is not allowed/);
  });

  it("rejects an IPv4 selector in an ip6 table and an IPv6 selector in an ip table", () => {
    expect(() => validateNftTable(withMatch({ kind: "addr", field: "ip daddr", value: "1.2.3.4" }, [], "ip6"))).toThrow(
      /match\[0\]\.field: "ip daddr" is not allowed; expected a selector for the table's family \(ip6\)/,
    );
    expect(() =>
      validateNftTable(withMatch({ kind: "icmpType", protocol: "icmpv6", types: ["echo-request"] }, [], "ip")),
    ).toThrow(matchPath);
  });

  it("rejects meta nfproto outside an inet table", () => {
    expect(() => validateNftTable(withMatch({ kind: "nfproto", value: "ipv4" }, [], "ip"))).toThrow(
      /meta nfproto only in an inet table/,
    );
  });

  it("rejects an unknown ICMP type or conntrack state", () => {
    const icmp = { kind: "icmpType", protocol: "icmp", types: ["echo-request; drop"] } as unknown as NftMatch;
    expect(() => validateNftTable(withMatch(icmp))).toThrow(
      /types\[0\]: "echo-request; drop" is not allowed; expected one of echo-reply/,
    );
    const ct = { kind: "ctState", states: ["established", "bogus"] } as unknown as NftMatch;
    expect(() => validateNftTable(withMatch(ct))).toThrow(/states\[1\]: "bogus"/);
  });

  it("rejects a mark outside 32 bits", () => {
    expect(() => validateNftTable(withMatch({ kind: "mark", value: 2 ** 32 }))).toThrow(
      /expected a mark: an integer from 0 to 4294967295/,
    );
  });
});

describe("validateNftTable: set declarations", () => {
  const table = (set: NftSet): NftTable => ({ family: "inet", name: "t", sets: [set], chains: [] });

  it("rejects a CIDR element in a set without the interval flag", () => {
    const set: NftSet = { name: "s", type: "ipv4_addr", elements: [{ value: "10.0.0.0/8" }] };
    expect(() => validateNftTable(table(set))).toThrow(
      /table\.sets\[0\]\.elements\[0\]\.value: "10\.0\.0\.0\/8" is not allowed; .*\(a CIDR needs flags interval on the set\)/,
    );
  });

  it("rejects an element of another type than the set's", () => {
    const set: NftSet = { name: "s", type: "inet_service", elements: [{ value: "443" }] };
    expect(() => validateNftTable(table(set))).toThrow(/elements\[0\]\.value: "443" is not allowed; expected a port/);
  });

  it("rejects a constant set that may also time out, which the kernel refuses", () => {
    expect(() => validateNftTable(table({ name: "s", type: "ipv4_addr", flags: ["constant", "timeout"] }))).toThrow(
      /flags: \["constant","timeout"\] is not allowed; expected constant without timeout or dynamic/,
    );
  });

  it("rejects a zero or fractional timeout", () => {
    expect(() => validateNftTable(table({ name: "s", type: "ipv4_addr", flags: ["timeout"], timeout: 0 }))).toThrow(
      /sets\[0\]\.timeout/,
    );
    const set: NftSet = {
      name: "s",
      type: "ipv4_addr",
      flags: ["timeout"],
      elements: [{ value: "1.2.3.4", timeout: 1.5 }],
    };
    expect(() => validateNftTable(table(set))).toThrow(/elements\[0\]\.timeout: 1\.5 is not allowed/);
  });

  it("rejects an unknown data type", () => {
    const set = { name: "s", type: ["ipv4_addr", "ether_addr"] } as unknown as NftSet;
    expect(() => validateNftTable(table(set))).toThrow(/sets\[0\]\.type\[1\]: "ether_addr" is not allowed/);
  });
});

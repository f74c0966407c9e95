import { describe, expect, it } from "vitest";
import {
  NftValidationError,
  printNftTable,
  validateNftTable,
  type NftRule,
  type NftTable,
} from "../../../../generator/emit/nft/index.js";
import { allSamples } from "./sample-tables.js";

/** A one-chain table whose single rule is `rule`. */
function withRule(rule: NftRule): NftTable {
  return { family: "inet", name: "t", sets: [], chains: [{ name: "c", rules: [rule] }] };
}

function withIfname(name: string): NftTable {
  return withRule({ match: [{ kind: "iface", field: "iifname", value: name }], verdict: "accept" });
}

describe("validateNftTable: names and text", () => {
  it("accepts every sample table", () => {
    for (const table of allSamples) expect(() => validateNftTable(table)).not.toThrow();
  });

  it("names the field, the bad value and the allowed form in its message", () => {
    const table: NftTable = { family: "inet", name: "a;b", sets: [], chains: [] };
    expect(() => validateNftTable(table)).toThrow(
      new NftValidationError("table.name", "a;b", "a letter then up to 63 letters, digits or _"),
    );
    expect(() => validateNftTable(table)).toThrow(
      'table.name: "a;b" is not allowed; expected a letter then up to 63 letters, digits or _',
    );
  });

  it.each(['a"b', "a;b", "x\ny", "a b", "1abc", "_x", "", "a-b", "x".repeat(65)])(
    "rejects the table name %j",
    (name) => {
      expect(() => validateNftTable({ family: "inet", name, sets: [], chains: [] })).toThrow(NftValidationError);
    },
  );

  it("accepts a 64-character name", () => {
    expect(() => validateNftTable({ family: "inet", name: `a${"b".repeat(63)}`, sets: [], chains: [] })).not.toThrow();
  });

  it.each(["accept", "counter", "ip", "Table", "ll"])("rejects the nft keyword %j as a chain name", (name) => {
    const table: NftTable = { family: "inet", name: "t", sets: [], chains: [{ name, rules: [] }] };
    expect(() => validateNftTable(table)).toThrow(
      /table\.chains\[0\]\.name: .* expected a name that is not an nft keyword/,
    );
  });

  it.each(['a"b', "a;b", "x\ny", "a".repeat(16), "eth*", ".", "ve f1", ""])("rejects the interface name %j", (name) => {
    expect(() => validateNftTable(withIfname(name))).toThrow(
      /chains\[0\]\.rules\[0\]\.match\[0\]\.value: .*interface name of 1-15/,
    );
  });

  it("accepts a 15-character interface name using every allowed punctuation mark", () => {
    expect(printNftTable(withIfname("ve-f1.a@b_c0123"))).toContain('iifname "ve-f1.a@b_c0123" accept');
  });

  it.each(['say "hi"', "back\\slash", "two\nlines", "tab\there", "caf\u00e9", "x".repeat(129), ""])(
    "rejects the comment %j",
    (comment) => {
      expect(() => validateNftTable(withRule({ match: [], verdict: "accept", comment }))).toThrow(
        /rules\[0\]\.comment: .*expected 1-128 printable ASCII characters without " or \\/,
      );
    },
  );

  it("accepts a 128-character comment of shell and nft punctuation, printed verbatim", () => {
    const comment = "#;{}$'@[]<>|&*!?=%~`^:,.-_+/()".padEnd(128, "x");
    expect(printNftTable(withRule({ match: [], verdict: "accept", comment }))).toContain(`accept comment "${comment}"`);
  });

  it("rejects a log prefix of 128 characters, one over the kernel limit", () => {
    const rule: NftRule = { match: [], log: { prefix: "p".repeat(128) }, verdict: "drop" };
    expect(() => validateNftTable(withRule(rule))).toThrow(/rules\[0\]\.log\.prefix: .*expected 1-127 printable ASCII/);
  });

  it("rejects a log prefix containing a quote", () => {
    const rule: NftRule = { match: [], log: { prefix: 'deny" accept #' }, verdict: "drop" };
    expect(() => validateNftTable(withRule(rule))).toThrow(NftValidationError);
  });

  it("rejects duplicate chain names", () => {
    const table: NftTable = {
      family: "inet",
      name: "t",
      sets: [],
      chains: [
        { name: "c", rules: [] },
        { name: "c", rules: [] },
      ],
    };
    expect(() => validateNftTable(table)).toThrow(
      /table\.chains\[1\]\.name: "c" is not allowed; expected a name not used/,
    );
  });

  it("rejects an unknown table family", () => {
    const table = { family: "arp", name: "t", sets: [], chains: [] } as unknown as NftTable;
    expect(() => validateNftTable(table)).toThrow(
      /table\.family: "arp" is not allowed; expected one of inet, ip, ip6, bridge, netdev/,
    );
  });
});

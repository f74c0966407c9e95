import { describe, expect, it } from "vitest";
import {
  printNftElements,
  printNftTable,
  renderNftFile,
  type NftSet,
  type NftTable,
} from "../../../../generator/emit/nft/index.js";
import { toolsAvailable } from "../../../support/tools.js";
import { nftCheck, nftLoadAndList, withNftFile } from "../../../support/nft-netns.js";
import { allSamples, hostTable, noneTable, restrictedTable } from "./sample-tables.js";

// ARCHITECTURE.md rule 2/10: the printer is only trusted once the real nft parser and kernel accept it.
// Each load happens in a fresh network namespace, so the host ruleset is never touched.
const tools = toolsAvailable("nft", "unshare");

/** Loads the sample as a replace-style file and returns `nft list table` output. */
function loadAndList(table: NftTable, loads = 1): string {
  const file = renderNftFile("test", [table], { replace: true });
  return withNftFile(file, (path) => nftLoadAndList(path, ["table", table.family, table.name], loads));
}

describe.skipIf(!tools.run)("printed tables against the real nft", () => {
  it.each(allSamples.map((table) => [table.name, table] as const))(
    "nft -c accepts the %s table as a replace-style file",
    (_name, table) => {
      withNftFile(renderNftFile("test", [table], { replace: true }), (path) => nftCheck(path));
    },
  );

  it("nft -c accepts all samples in one file", () => {
    withNftFile(renderNftFile("test", allSamples, { replace: true }), (path) => nftCheck(path));
  });

  it.each(allSamples.map((table) => [table.name, table] as const))(
    "the %s table loads into the kernel and lists back",
    (_name, table) => {
      expect(loadAndList(table)).toContain(`table ${table.family} ${table.name} {`);
    },
  );

  it("the none table lists back with its drop policy and rejects", () => {
    const listed = loadAndList(noneTable);
    expect(listed).toContain("type filter hook output priority filter; policy drop;");
    expect(listed).toContain('oifname "lo" accept');
    expect(listed).toContain("ct state { established, related } accept");
    expect(listed).toContain("meta l4proto tcp reject with tcp reset");
    // nft 1.0.6 lists icmpx rejects without the optional `type` keyword the printer emits.
    expect(listed).toContain("reject with icmpx admin-prohibited");
  });

  it("the host table lists back with counters and the nflog prefix intact", () => {
    const listed = loadAndList(hostTable);
    expect(listed).toContain('iifname "ve-f1" jump egress');
    expect(listed).toMatch(
      /meta l4proto tcp counter packets 0 bytes 0 log prefix "forage-deny f1: " group 1 reject with tcp reset/,
    );
    expect(listed).toContain('iifname "ve-f1" tcp dport { 53, 3128 } counter packets 0 bytes 0 accept');
  });

  it("loading the replace-style file twice leaves exactly one copy of the table", () => {
    const listed = loadAndList(restrictedTable, 2);
    expect(listed.match(/^table inet forage_restricted \{$/gm)).toHaveLength(1);
    expect(listed.match(/ip daddr @allowed4 accept/g)).toHaveLength(1);
  });
});

describe.skipIf(!tools.run)("run-time element commands against the real nft", () => {
  const allowed4 = restrictedTable.sets.find((set) => set.name === "allowed4") as NftSet;
  const allowedPorts = restrictedTable.sets.find((set) => set.name === "allowed4_ports") as NftSet;

  /** Loads the restricted table followed by `commands`, then lists one of its sets. */
  function loadWithCommands(commands: string, setName: string): string {
    const file = `${renderNftFile("test", [restrictedTable], { replace: true })}${commands}`;
    return withNftFile(file, (path) => nftLoadAndList(path, ["set", "inet", restrictedTable.name, setName]));
  }

  it("an add element line adds addresses with their TTL timeouts to a loaded set", () => {
    const line = printNftElements(restrictedTable, allowed4, [
      { value: "93.184.216.34", timeout: 300 },
      { value: "93.184.216.35", timeout: 60 },
    ]);
    const listed = loadWithCommands(line, "allowed4");
    expect(listed).toMatch(/93\.184\.216\.34 timeout 5m expires/);
    expect(listed).toMatch(/93\.184\.216\.35 timeout 1m expires/);
  });

  it("an add element line adds concatenated address-and-port elements", () => {
    const line = printNftElements(restrictedTable, allowedPorts, [{ value: ["93.184.216.34", 443], timeout: 300 }]);
    expect(loadWithCommands(line, "allowed4_ports")).toMatch(/93\.184\.216\.34 \. 443 timeout 5m expires/);
  });
});

describe.skipIf(!tools.run)("validator limits against the real nft", () => {
  it("the longest names, interface name, comment and log prefix the validator allows load unchanged", () => {
    const long = `n${"x".repeat(63)}`;
    const comment = "#;{}$'@[]<>|&*!?=%~`^:,.-_+/()".padEnd(128, "c");
    const prefix = "p".repeat(127);
    const table: NftTable = {
      family: "inet",
      name: long,
      comment,
      sets: [{ name: long, type: "ifname", elements: [{ value: "ve-f1.a@b_c0123" }], comment }],
      chains: [
        {
          name: long,
          comment,
          base: { type: "filter", hook: "input", priority: 0 },
          rules: [
            {
              match: [{ kind: "iface", field: "iifname", value: { set: long } }],
              log: { prefix },
              verdict: "accept",
              comment,
            },
          ],
        },
      ],
    };
    const listed = withNftFile(printNftTable(table), (path) => nftLoadAndList(path, ["table", "inet", long]));
    expect(listed).toContain(`set ${long} {`);
    expect(listed).toContain(`chain ${long} {`);
    expect(listed).toContain('"ve-f1.a@b_c0123"');
    expect(listed).toContain(`iifname @${long} log prefix "${prefix}" accept comment "${comment}"`);
  });

  it.each(["accept", "counter", "ip"])(
    "nft itself refuses a chain named %j, which is why keywords are rejected",
    (name) => {
      const text = `table inet t {\n\tchain ${name} {\n\t}\n}\n`;
      expect(() => withNftFile(text, (path) => nftCheck(path))).toThrow(/syntax error/);
    },
  );
});

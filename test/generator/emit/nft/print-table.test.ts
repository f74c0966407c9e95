import { describe, expect, it } from "vitest";
import { printNftTable, type NftTable } from "../../../../generator/emit/nft/index.js";
import { featureTable, hostTable, natTable, noneTable, restrictedTable } from "./sample-tables.js";

/** Joins lines with LF and a trailing LF, so expected texts show their tabs as `\t`. */
function text(...lines: string[]): string {
  return `${lines.join("\n")}\n`;
}

describe("printNftTable", () => {
  it("prints the in-container none table in nft's list-ruleset style", () => {
    expect(printNftTable(noneTable)).toBe(
      text(
        "table inet forage_none {",
        '\tcomment "forage sandbox policy: none"',
        "\tchain output {",
        "\t\ttype filter hook output priority filter; policy drop;",
        '\t\toifname "lo" accept',
        "\t\tct state { established, related } accept",
        "\t\tmeta l4proto tcp reject with tcp reset",
        "\t\treject with icmpx type admin-prohibited",
        "\t}",
        "}",
      ),
    );
  });

  it("prints the restricted table with timeout sets, concatenated lookups, DNS and ICMP", () => {
    expect(printNftTable(restrictedTable)).toBe(
      text(
        "table inet forage_restricted {",
        "\tset allowed4 {",
        "\t\ttype ipv4_addr",
        "\t\tflags timeout",
        "\t}",
        "",
        "\tset allowed6 {",
        "\t\ttype ipv6_addr",
        "\t\tflags timeout",
        "\t}",
        "",
        "\tset allowed4_ports {",
        "\t\ttype ipv4_addr . inet_service",
        "\t\tflags timeout",
        "\t}",
        "",
        "\tset allowed6_ports {",
        "\t\ttype ipv6_addr . inet_service",
        "\t\tflags timeout",
        "\t}",
        "",
        "\tchain output {",
        "\t\ttype filter hook output priority filter; policy drop;",
        '\t\toifname "lo" accept',
        "\t\tct state { established, related } accept",
        "\t\tip daddr 127.0.0.1 udp dport 53 accept",
        "\t\tip daddr 127.0.0.1 tcp dport 53 accept",
        "\t\ticmp type { echo-request, destination-unreachable, time-exceeded } accept",
        "\t\ticmpv6 type { echo-request, packet-too-big, nd-neighbor-solicit, nd-neighbor-advert } accept",
        "\t\tip daddr @allowed4 accept",
        "\t\tip6 daddr @allowed6 accept",
        "\t\tip daddr . tcp dport @allowed4_ports accept",
        "\t\tip6 daddr . tcp dport @allowed6_ports accept",
        "\t\tmeta l4proto tcp reject with tcp reset",
        "\t\treject with icmpx type admin-prohibited",
        "\t}",
        "}",
      ),
    );
  });

  it("prints the host-side table with counters, an nflog group before reject and a jump", () => {
    const deny = 'counter log prefix "forage-deny f1: " group 1';
    expect(printNftTable(hostTable)).toBe(
      text(
        "table inet forage_f1 {",
        '\tcomment "forage sandbox f1 (host side)"',
        "\tset allowed4 {",
        "\t\ttype ipv4_addr",
        "\t\tsize 65535",
        "\t\tflags timeout",
        "\t\tgc-interval 60s",
        "\t}",
        "",
        "\tset allowed6 {",
        "\t\ttype ipv6_addr",
        "\t\tsize 65535",
        "\t\tflags timeout",
        "\t\tgc-interval 60s",
        "\t}",
        "",
        "\tset allowed4_ports {",
        "\t\ttype ipv4_addr . inet_service",
        "\t\tflags timeout",
        "\t}",
        "",
        "\tchain forward {",
        "\t\ttype filter hook forward priority filter; policy accept;",
        '\t\tiifname "ve-f1" jump egress',
        "\t}",
        "",
        "\tchain egress {",
        '\t\tcomment "traffic leaving sandbox f1"',
        "\t\tct state { established, related } accept",
        "\t\tip daddr @allowed4 counter accept",
        "\t\tip6 daddr @allowed6 counter accept",
        "\t\tip daddr . tcp dport @allowed4_ports counter accept",
        `\t\tmeta l4proto tcp ${deny} reject with tcp reset`,
        `\t\t${deny} reject with icmpx type admin-prohibited comment "deny the rest"`,
        "\t}",
        "",
        "\tchain input {",
        "\t\ttype filter hook input priority -10; policy accept;",
        '\t\tiifname "ve-f1" ct state { established, related } accept',
        '\t\tiifname "ve-f1" udp dport 53 counter accept',
        '\t\tiifname "ve-f1" tcp dport { 53, 3128 } counter accept',
        `\t\tiifname "ve-f1" meta l4proto tcp ${deny} reject with tcp reset`,
        `\t\tiifname "ve-f1" ${deny} reject with icmpx type admin-prohibited`,
        "\t}",
        "}",
      ),
    );
  });

  it("prints set elements by type: CIDRs, quoted ifnames, protocol names, hex marks, timeouts, concatenations", () => {
    const printed = printNftTable(featureTable);
    expect(printed).toContain("\t\telements = { 10.0.0.0/8, 192.168.1.1 }\n");
    expect(printed).toContain('\t\tcomment "ULA"\n\t\telements = { fd00::/8 }\n');
    expect(printed).toContain('\t\telements = { "ve-f1", "ve-f2" }\n');
    expect(printed).toContain("\t\telements = { tcp, icmpv6 }\n");
    expect(printed).toContain("\t\telements = { 0x00000001, 0x000000ff }\n");
    expect(printed).toContain("\t\tflags timeout\n\t\ttimeout 3600s\n\t\telements = { 443 timeout 60s, 80 }\n");
    expect(printed).toContain("\t\ttype inet_proto . inet_service\n\t\telements = { udp . 53 }\n");
  });

  it("prints negations, anonymous sets, port ranges, marks, goto, return and every reject flavour", () => {
    const printed = printNftTable(featureTable);
    expect(printed).toContain("\t\ttype filter hook prerouting priority raw;\n");
    expect(printed).toContain('\t\tiifname != { "lo", "ve-f1" } meta mark 0x00000007 goto classify\n');
    expect(printed).toContain(
      '\t\tmeta nfproto ipv6 meta l4proto != { tcp, udp } log prefix "odd: " level info drop\n',
    );
    expect(printed).toContain("\t\tiifname @ifaces meta l4proto @protos return\n");
    expect(printed).toContain("\t\tip saddr != @nets4 ip daddr { 10.1.0.0/16, 10.2.3.4 } drop\n");
    expect(printed).toContain("\t\tip6 saddr @nets6 th dport { 1000-2000, 8080 } accept\n");
    expect(printed).toContain("\t\ttcp sport != @ports meta mark != @marks drop\n");
    expect(printed).toContain("\t\tmeta l4proto . th dport @proto_ports ct state != invalid accept\n");
    expect(printed).toContain("\t\tudp sport 0-1023 reject with icmpx type port-unreachable\n");
    expect(printed).toContain("\t\treject\n");
  });

  it("prints NAT verdicts with an explicit address family and a bracketed IPv6 address before a port", () => {
    const printed = printNftTable(natTable);
    expect(printed).toContain("\t\ttype nat hook prerouting priority dstnat;\n");
    expect(printed).toContain("\t\ttcp dport 80 dnat ip to 10.100.1.2:8080\n");
    expect(printed).toContain("\t\ttcp dport 81 dnat ip6 to [fd00::2]:8080\n");
    expect(printed).toContain("\t\tip daddr 10.100.1.1 dnat ip to 10.100.1.2\n");
    expect(printed).toContain("\t\tmeta l4proto { tcp, udp } th dport 53 redirect to :5353\n");
    expect(printed).toContain('\t\toifname "eth0" masquerade\n');
  });

  it("prefixes the table with a create-then-delete pair when replace is set", () => {
    const printed = printNftTable(noneTable, { replace: true });
    expect(
      printed.startsWith("table inet forage_none\ndelete table inet forage_none\ntable inet forage_none {\n"),
    ).toBe(true);
    expect(printed.endsWith(printNftTable(noneTable))).toBe(true);
  });

  it("prints a table without sets or chains as an empty block", () => {
    expect(printNftTable({ family: "ip6", name: "empty", sets: [], chains: [] })).toBe("table ip6 empty {\n}\n");
  });

  it("prints the same text for the same table, however often it is printed", () => {
    const copy = structuredClone(hostTable) as NftTable;
    expect(printNftTable(copy)).toBe(printNftTable(hostTable));
    expect(printNftTable(hostTable)).toBe(printNftTable(hostTable));
  });

  it("prints set flags in one canonical order whatever order they were given in", () => {
    const table = (flags: NftTable["sets"][number]["flags"]): NftTable => ({
      family: "inet",
      name: "t",
      chains: [],
      sets: [{ name: "s", type: "ipv4_addr", ...(flags ? { flags } : {}) }],
    });
    expect(printNftTable(table(["timeout", "interval"]))).toBe(printNftTable(table(["interval", "timeout"])));
    expect(printNftTable(table(["timeout", "interval"]))).toContain("\t\tflags interval,timeout\n");
  });
});

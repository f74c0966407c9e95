import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { printNftElements, printNftTable, type NftSet } from "../../../../generator/emit/nft/index.js";
import { hostPolicyTable, hostPolicyTableRef } from "../../../../generator/policy/network/host-table.js";
import type { NetworkPolicy } from "../../../../generator/policy/network/policy-schema.js";
import { parseDeniedSet } from "../../../../runtime/gates/network/denial-poller.js";
import { sandboxLink } from "../../../../runtime/gates/network/sandbox-link.js";
import { toolsAvailable } from "../../../support/tools.js";

// The host-side table of each mode, loaded into the real kernel inside a throwaway network
// namespace (unshare -n), never into the host's ruleset.
const tools = toolsAvailable("nft", "unshare");
const link = sandboxLink(7, "10.100");
const policy = (mode: NetworkPolicy["mode"], sni = false): NetworkPolicy => ({
  mode,
  allow: ["api.example.com"],
  deny: [],
  sni,
});
const services = { dnsPort: 40123, tlsPort: 40124, httpPort: 40125 };

/**
 * Runs `script` (nft commands, one per line) in a fresh namespace and returns `nft -j list set`
 * of `set`, if given. The names reach the shell as arguments, never as script text.
 */
function inFreshNamespace(script: string, listSet?: string): string {
  const loadThenList = 'nft -f - && { [ -z "$2" ] || nft -j list set inet "$1" "$2"; }';
  return execFileSync(
    "unshare",
    ["-n", "--", "sh", "-c", loadThenList, "sh", hostPolicyTableRef(link).name, listSet ?? ""],
    { input: script, encoding: "utf8" },
  );
}

describe("the host-side table of a sandbox", () => {
  it("redirects the sandbox's DNS to its filter and lets only the filter's port in", () => {
    const text = printNftTable(hostPolicyTable(link, policy("restricted"), services, null));
    expect(text).toContain('iifname "ve-f7" ip daddr 10.100.7.1 udp dport 53 redirect to :40123');
    expect(text).toContain('iifname "ve-f7" ip daddr 10.100.7.1 meta l4proto { tcp, udp } th dport 40123 accept');
  });

  it("with sni, sends the sandbox's TCP 443 and 80 to its name gate on both families, and lets them in", () => {
    const text = printNftTable(hostPolicyTable(link, policy("restricted", true), services, null));
    expect(text).toContain('iifname "ve-f7" meta nfproto ipv4 tcp dport 443 dnat ip to 10.100.7.1:40124');
    expect(text).toContain('iifname "ve-f7" meta nfproto ipv6 tcp dport 80 dnat ip6 to [fd66:a64:7::1]:40125');
    expect(text).toContain('iifname "ve-f7" ip daddr 10.100.7.1 tcp dport { 40124, 40125 } accept');
    expect(text).toContain('iifname "ve-f7" ip6 daddr fd66:a64:7::1 tcp dport { 40124, 40125 } accept');
    expect(printNftTable(hostPolicyTable(link, policy("restricted"), services, null))).not.toContain("dnat");
  });

  it("lets restricted traffic out only to the allowed sets, after refusing other resolvers", () => {
    const forward =
      printNftTable(hostPolicyTable(link, policy("restricted"), null, null)).split("chain forward")[1] ?? "";
    const order = [
      "th dport { 53, 853 } jump refuse",
      "ip daddr @allowed4 accept",
      "ip6 daddr @allowed6 accept",
      'iifname "ve-f7" jump refuse',
    ].map((rule) => forward.indexOf(rule));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it("drops what the sandbox sends from any address but its own, before anything else sees it", () => {
    const spoofed =
      printNftTable(hostPolicyTable(link, policy("full"), services, null)).split("chain spoofed")[1] ?? "";
    expect(spoofed).toContain("type filter hook prerouting priority raw; policy accept;");
    expect(spoofed).toContain('iifname "ve-f7" ip saddr != 10.100.7.2 counter drop');
    expect(spoofed).toContain('iifname "ve-f7" ip6 saddr != { fd66:a64:7::2, fe80::/10 } counter drop');
  });

  it("refuses in rules of their own, so a full denied set cannot turn a refusal into a fall-through", () => {
    const refuse =
      (printNftTable(hostPolicyTable(link, policy("restricted"), services, null)).split("chain refuse")[1] ?? "").split(
        "chain ",
      )[0] ?? "";
    const rules = refuse.split("\n").filter((line) => line.includes("@denied") || line.includes("reject"));
    const updates = rules.filter((line) => line.includes("update @denied"));
    const rejects = rules.filter((line) => line.includes("reject"));
    expect([updates.length, rejects.length]).toEqual([4, 2]);
    expect(updates.every((line) => line.trim().endsWith("continue"))).toBe(true);
    expect(rejects.every((line) => !line.includes("update"))).toBe(true);
    expect(rules.at(-1)?.trim()).toBe("counter reject with icmpx type admin-prohibited");
  });

  it("masquerades restricted and full traffic, and none has no way out at all", () => {
    expect(printNftTable(hostPolicyTable(link, policy("full"), null, null))).toContain(
      'iifname "ve-f7" oifname != "ve-f7" masquerade',
    );
    const none = printNftTable(hostPolicyTable(link, policy("none"), null, null));
    expect(none).not.toContain("masquerade");
    expect(none).not.toContain('accept comment "full');
    expect(none).not.toContain("@allowed4");
  });

  it("sends full traffic only through the external interface when one is set", () => {
    expect(printNftTable(hostPolicyTable(link, policy("full"), null, "enp3s0"))).toContain(
      'iifname "ve-f7" oifname "enp3s0" accept comment "full: routed out"',
    );
  });

  it("with agents behind the API proxy, admits the proxy port from the sandbox and drops it from anywhere else", () => {
    const input =
      (printNftTable(hostPolicyTable(link, policy("none"), services, null, 18080)).split("chain input")[1] ?? "").split(
        "chain ",
      )[0] ?? "";
    expect(input).toContain('iifname "ve-f7" ip daddr 10.100.7.1 tcp dport 18080 accept');
    expect(input).toContain('iifname != "ve-f7" ip daddr 10.100.7.1 tcp dport 18080 drop');
    expect(printNftTable(hostPolicyTable(link, policy("none"), services, null, null))).not.toContain("18080");
  });

  describe.skipIf(!tools.run)("in the real kernel", () => {
    it("loads with the API proxy's rules", () => {
      expect(() =>
        inFreshNamespace(
          printNftTable(hostPolicyTable(link, policy("restricted"), services, null, 18080), { replace: true }),
        ),
      ).not.toThrow();
    });

    it.each([
      ["none", false],
      ["restricted", false],
      ["restricted", true],
      ["full", false],
    ] as const)("loads in mode %s (sni %s)", (mode, sni) => {
      expect(() =>
        inFreshNamespace(printNftTable(hostPolicyTable(link, policy(mode, sni), services, "eth0"), { replace: true })),
      ).not.toThrow();
    });

    it("takes admitted addresses with timeouts, renewed by add + delete + add in one transaction", () => {
      const table = hostPolicyTable(link, policy("restricted"), null, null);
      const allowed4 = table.sets.find((set) => set.name === "allowed4") as NftSet;
      const element = [{ value: "192.0.2.7", timeout: 300 }];
      const renewal =
        printNftElements(hostPolicyTableRef(link), allowed4, element) +
        printNftElements(hostPolicyTableRef(link), allowed4, element, "delete") +
        printNftElements(hostPolicyTableRef(link), allowed4, [{ value: "192.0.2.7", timeout: 900 }]);
      const listed = inFreshNamespace(
        printNftTable(table) + printNftElements(hostPolicyTableRef(link), allowed4, element) + renewal,
        "allowed4",
      );
      expect(listed).toMatch(/"192\.0\.2\.7"/);
      expect(listed).toMatch(/"timeout": 900/);
    });

    it("reads refused destinations with their packet counters back from the denied sets", () => {
      const table = printNftTable(hostPolicyTable(link, policy("restricted"), null, null));
      const listed = inFreshNamespace(
        `${table}add element inet forage_f7 denied4 { 192.0.2.9 . tcp . 80, 192.0.2.9 . icmp . 0 }\n`,
        "denied4",
      );
      expect(
        parseDeniedSet(listed)
          .map(({ address, protocol, port }) => `${address} ${protocol} ${port}`)
          .sort(),
      ).toEqual(["192.0.2.9 icmp 0", "192.0.2.9 tcp 80"]);
    });
  });
});

import { describe, expect, it } from "vitest";
import { printNftTable } from "../../../../generator/emit/nft/index.js";
import { hostPolicyTable } from "../../../../generator/policy/network/host-table.js";
import { refusalReason } from "../../../../generator/policy/network/refusal-reason.js";
import { sandboxLink } from "../../../../generator/policy/network/sandbox-link.js";

const link = sandboxLink(7, "10.100");
const restricted = { mode: "restricted", sni: false } as const;
const gated = { mode: "restricted", sni: true } as const;
const to = (address: string, protocol: string, port: number) => ({ address, protocol, port });

describe("the rule a denial record names", () => {
  it("names the host's services, whatever the mode", () => {
    expect(refusalReason({ mode: "full", sni: false }, link, to("10.100.7.1", "tcp", 22), undefined)).toBe(
      "host service",
    );
    expect(refusalReason(restricted, link, to("fd66:a64:7::1", "udp", 9), undefined)).toBe("host service");
  });

  it("names mode none, and in full mode the external interface", () => {
    expect(refusalReason({ mode: "none", sni: false }, link, to("192.0.2.1", "tcp", 53), undefined)).toBe("mode none");
    expect(refusalReason({ mode: "full", sni: false }, link, to("192.0.2.1", "tcp", 53), undefined)).toBe(
      "full: only through the external interface",
    );
  });

  it("names another resolver (DNS or DoT, TCP or UDP) before the allowlist, even for an admitted name", () => {
    for (const [protocol, port] of [
      ["udp", 53],
      ["tcp", 853],
    ] as const) {
      expect(refusalReason(restricted, link, to("192.0.2.1", protocol, port), "api.example")).toBe(
        "DNS or DoT to another resolver",
      );
    }
    expect(refusalReason(restricted, link, to("192.0.2.1", "icmp", 0), undefined)).toBe("not in allow");
  });

  it("names QUIC only when the policy gates names (sni)", () => {
    expect(refusalReason(gated, link, to("192.0.2.1", "udp", 443), undefined)).toBe(
      "sni: QUIC (TCP goes through the name gate)",
    );
    expect(refusalReason(restricted, link, to("192.0.2.1", "udp", 443), undefined)).toBe("not in allow");
  });

  it("names the port an admitted name is not allowed on", () => {
    expect(refusalReason(restricted, link, to("192.0.2.1", "tcp", 22), "example.com")).toBe(
      "port 22 not in allow for example.com",
    );
  });

  it("matches the refusals the host table states, comment for comment", () => {
    const forward = printNftTable(hostPolicyTable(link, gated, null, null)).split("chain forward")[1] ?? "";
    expect(forward).toContain('iifname "ve-f7" udp dport { 80, 443 } jump refuse comment "sni: QUIC"');
    expect(forward).toContain(
      'iifname "ve-f7" meta l4proto { tcp, udp } th dport { 53, 853 } jump refuse comment "DNS or DoT to another resolver"',
    );
  });
});

import { describe, expect, it } from "vitest";
import { nameVerdict as verdictOf } from "../../../../generator/policy/network/name-verdict.js";
import { policyRules } from "../../../../generator/policy/network/policy-rules.js";
import { networkPolicySchema, type NetworkPolicy } from "../../../../generator/policy/network/policy-schema.js";

const restricted = (allow: string[], deny: string[] = []): NetworkPolicy => ({
  mode: "restricted",
  allow,
  deny,
  sni: false,
});
/** The verdict under a policy as the metadata records it, its entries parsed as the guard parses them. */
const nameVerdict = (policy: NetworkPolicy, name: string): ReturnType<typeof verdictOf> =>
  verdictOf(policyRules(policy), name);

describe("which names a sandbox may resolve", () => {
  it("allows an exact name, with any port when the entry has none", () => {
    expect(nameVerdict(restricted(["api.example.com"]), "api.example.com")).toEqual({ allowed: true, ports: null });
    expect(nameVerdict(restricted(["api.example.com"]), "www.api.example.com")).toEqual({
      allowed: false,
      rule: "not in allow",
    });
  });

  it("lets *.suffix cover the names below it but not the suffix itself", () => {
    const policy = restricted(["*.github.com"]);
    expect(nameVerdict(policy, "api.github.com").allowed).toBe(true);
    expect(nameVerdict(policy, "a.b.github.com").allowed).toBe(true);
    expect(nameVerdict(policy, "github.com").allowed).toBe(false);
    expect(nameVerdict(policy, "evilgithub.com").allowed).toBe(false);
  });

  it("merges the ports of every matching entry, and an entry without a port allows all", () => {
    expect(nameVerdict(restricted(["*.example.com:443", "api.example.com:8443"]), "api.example.com")).toEqual({
      allowed: true,
      ports: [443, 8443],
    });
    expect(nameVerdict(restricted(["*.example.com:443", "api.example.com"]), "api.example.com")).toEqual({
      allowed: true,
      ports: null,
    });
  });

  it("checks the deny list first, in every mode", () => {
    expect(nameVerdict(restricted(["*.example.com"], ["paste.example.com"]), "paste.example.com")).toEqual({
      allowed: false,
      rule: "deny paste.example.com",
    });
    expect(nameVerdict({ mode: "full", allow: [], deny: ["*.paste.example"], sni: false }, "x.paste.example")).toEqual({
      allowed: false,
      rule: "deny *.paste.example",
    });
    expect(nameVerdict({ mode: "full", allow: [], deny: [], sni: false }, "anything.example")).toEqual({
      allowed: true,
      ports: null,
    });
    expect(nameVerdict({ mode: "none", allow: ["a.example"], deny: [], sni: false }, "a.example")).toEqual({
      allowed: false,
      rule: "mode none",
    });
  });

  it("refuses addresses and malformed names as policy entries", () => {
    expect(networkPolicySchema.safeParse(restricted(["10.0.0.1"])).success).toBe(false);
    expect(networkPolicySchema.safeParse(restricted([], ["bad name"])).success).toBe(false);
    expect(networkPolicySchema.safeParse(restricted([], ["*.ok.example"])).success).toBe(true);
  });
});

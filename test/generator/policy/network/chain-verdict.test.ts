import { describe, expect, it } from "vitest";
import { chainVerdict } from "../../../../generator/policy/network/chain-verdict.js";
import { policyRules } from "../../../../generator/policy/network/policy-rules.js";

const policy = policyRules({
  mode: "restricted",
  allow: ["*.cdn.example", "api.example:443"],
  deny: ["blocked.example"],
  sni: false,
});

describe("the verdict on a CNAME chain", () => {
  it("refuses an allowed name that aliases a denied one (the deny list wins)", () => {
    expect(chainVerdict(policy, ["x.cdn.example", "blocked.example"])).toMatchObject({
      allowed: false,
      rule: "CNAME to blocked.example: deny blocked.example",
    });
  });

  it("control: an allowed name aliasing a name the lists do not mention stays allowed on its ports", () => {
    expect(chainVerdict(policy, ["x.cdn.example", "edge.other.example"])).toEqual({ allowed: true, ports: null });
  });

  it("narrows the ports to those of an allowlisted name further down the chain", () => {
    expect(chainVerdict(policy, ["x.cdn.example", "api.example"])).toEqual({ allowed: true, ports: [443] });
  });
});

import { describe, expect, it } from "vitest";
import { chainVerdict } from "../../../runtime/network/dns/chain-verdict.js";
import type { NetworkPolicy } from "../../../runtime/network/network-policy.js";

const policy: NetworkPolicy = { mode: "restricted", allow: ["*.cdn.example", "api.example:443"], deny: ["blocked.example"], sni: false };

describe("the verdict on a CNAME chain", () => {
  it("refuses an allowed name that aliases a denied one (the deny list wins)", () => {
    expect(chainVerdict(policy, ["x.cdn.example", "blocked.example"])).toMatchObject({ allowed: false, rule: "CNAME to blocked.example: deny blocked.example" });
  });

  it("control: an allowed name aliasing a name the lists do not mention stays allowed on its ports", () => {
    expect(chainVerdict(policy, ["x.cdn.example", "edge.other.example"])).toEqual({ allowed: true, ports: null });
  });

  it("narrows the ports to those of an allowlisted name further down the chain", () => {
    expect(chainVerdict(policy, ["x.cdn.example", "api.example"])).toEqual({ allowed: true, ports: [443] });
  });
});

import { describe, expect, it } from "vitest";
import { describeFlow } from "../../../../runtime/backends/gvisor/checkpoint.js";

describe("describeFlow", () => {
  it("names a conntrack line by its original direction and state", () => {
    const line =
      "tcp      6 117 TIME_WAIT src=10.195.1.2 dst=10.195.1.1 sport=28203 dport=53 src=10.195.1.1 dst=10.195.1.2 sport=36327 dport=28203 [ASSURED] mark=0 use=1";
    expect(describeFlow(line)).toBe("10.195.1.2:28203 → 10.195.1.1:53 TIME_WAIT");
  });

  it("names an IPv6 flow, and one whose line it cannot read with question marks rather than guesses", () => {
    const line =
      "tcp      6 431999 ESTABLISHED src=fd00:100:1::2 dst=fd00:100:1::1 sport=40000 dport=443 src=fd00:100:1::1 dst=fd00:100:1::2 sport=443 dport=40000 [ASSURED] mark=0 use=1";
    expect(describeFlow(line)).toBe("fd00:100:1::2:40000 → fd00:100:1::1:443 ESTABLISHED");
    expect(describeFlow("garbage")).toBe("?:? → ?:?");
  });
});

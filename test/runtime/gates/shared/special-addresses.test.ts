import { describe, expect, it } from "vitest";
import { SpecialAddresses } from "../../../../runtime/gates/shared/special-addresses.js";
import { embeddedIPv4 } from "../../../../runtime/gates/shared/special-ranges.js";

/*
 * What an allowed name's answer may carry. Each special-purpose range gets one address inside it
 * (refused, naming the range) and, as its control, the nearest address outside it (admitted), so
 * no range passes by a prefix that happens to cover everything.
 */
const special = new SpecialAddresses({ v4: "10.100.0.0", v6: "fd66:a64::" }, ["10.20.0.0/16", "fd99:220::/32"]);

const ranges: [range: string, inside: string, outside: string, why: string][] = [
  ["0.0.0.0/8", "0.1.2.3", "1.0.0.1", '"this network"'],
  ["127.0.0.0/8", "127.0.0.53", "128.0.0.1", "loopback"],
  ["169.254.0.0/16", "169.254.169.254", "169.255.0.1", "link-local"],
  ["192.0.0.0/24", "192.0.0.8", "192.0.1.1", "IETF protocol assignments"],
  ["192.0.2.0/24", "192.0.2.10", "192.0.3.1", "documentation (TEST-NET-1)"],
  ["192.88.99.0/24", "192.88.99.1", "192.88.98.1", "6to4 relay"],
  ["198.18.0.0/15", "198.19.255.1", "198.20.0.1", "benchmarking"],
  ["198.51.100.0/24", "198.51.100.7", "198.51.101.7", "TEST-NET-2"],
  ["203.0.113.0/24", "203.0.113.7", "203.0.114.7", "TEST-NET-3"],
  ["224.0.0.0/4", "239.255.255.250", "223.255.255.1", "multicast"],
  ["240.0.0.0/4", "255.255.255.255", "223.255.255.2", "reserved"],
  ["::/127", "::1", "::2:0:0", "loopback"],
  ["::/96 (IPv4-compatible)", "::a9fe:a9fe", "::1:0:0:1", "IPv4-compatible"],
  ["::ffff:0:0/96", "::ffff:a9fe:a9fe", "::fffe:a9fe:a9fe", "IPv4-mapped"],
  ["64:ff9b::/96", "64:ff9b::a9fe:a9fe", "64:ff9a::1", "NAT64"],
  ["64:ff9b:1::/48", "64:ff9b:1::a00:1", "64:ff9b:2::1", "local-use NAT64"],
  ["100::/64", "100::1", "100:0:0:1::1", "discard-only"],
  ["2001::/32", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001:1:1::1", "Teredo"],
  ["2001:2::/48", "2001:2::1", "2001:2:1::1", "benchmarking"],
  ["2001:10::/28", "2001:10::1", "2001:30::1", "ORCHID"],
  ["2001:20::/28", "2001:2f::1", "2001:30::2", "ORCHIDv2"],
  ["2001:db8::/32", "2001:db8::1", "2001:db9::1", "documentation"],
  ["2002::/16", "2002:a9fe:a9fe::1", "2003::1", "6to4"],
  ["3fff::/20", "3fff:fff::1", "3fff:1000::1", "documentation"],
  ["5f00::/16", "5f00::1", "5f01::1", "SRv6"],
  ["fe80::/10", "fe80::1", "fe7f::1", "link-local"],
  ["fec0::/10", "fec0::1", "2a00::1", "site-local"],
  ["ff00::/8", "ff02::1", "2a01::1", "multicast"],
  ["10.100.0.0/16 (the sandboxes')", "10.100.3.2", "10.20.0.5", "a sandbox's"],
];

describe("special-purpose addresses in a DNS answer", () => {
  it.each(ranges)("refuses %s and names it, and admits the address just outside", (_range, inside, outside, why) => {
    expect(special.refusal(inside)).toContain(why);
    expect(special.refusal(inside)).toContain(inside);
    expect(special.refusal(outside)).toBeNull();
  });

  it("refuses private ranges unless network.admitPrivate lists them", () => {
    expect(special.refusal("192.168.1.1")).toBe("192.168.1.1 is private (not in network.admitPrivate)");
    expect(special.refusal("100.64.0.1")).toContain("private");
    expect(special.refusal("fd00::1")).toContain("private");
    expect(special.refusal("10.20.0.5")).toBeNull();
    expect(special.refusal("fd99:220::10")).toBeNull();
  });

  it("decodes the IPv4 address NAT64, 6to4, Teredo and mapped addresses lead to", () => {
    expect(special.refusal("64:ff9b::a9fe:a9fe")).toBe(
      "64:ff9b::a9fe:a9fe is NAT64 (64:ff9b::/96), for 169.254.169.254",
    );
    expect(special.refusal("2002:a00:1::1")).toBe("2002:a00:1::1 is 6to4 (2002::/16), for 10.0.0.1");
    expect(special.refusal("::ffff:127.0.0.1")).toBe("::ffff:127.0.0.1 is IPv4-mapped (::ffff:0:0/96), for 127.0.0.1");
    // RFC 4380's example: client 192.0.2.45 appears inverted as 3fff:fdd2.
    expect(embeddedIPv4("2001:0:4136:e378:8000:63bf:3fff:fdd2", "teredo")).toBe("192.0.2.45");
  });

  it("keeps the families apart: an IPv4 address is never judged by an IPv4-mapped range", () => {
    expect(special.refusal("1.2.3.4")).toBeNull();
    expect(special.refusal("not-an-address")).toBe("not an address");
  });
});

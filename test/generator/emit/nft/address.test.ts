import { describe, expect, it } from "vitest";
import { parseAddress } from "../../../../generator/emit/nft/address.js";

describe("parseAddress", () => {
  it("parses a plain IPv4 address without a prefix", () => {
    expect(parseAddress("10.100.1.2")).toEqual({ version: 4, prefix: undefined, hostBitsSet: false });
  });

  it("parses an IPv6 CIDR with its prefix length", () => {
    expect(parseAddress("fd00::/64")).toEqual({ version: 6, prefix: 64, hostBitsSet: false });
  });

  it("flags host bits after the prefix in both families", () => {
    expect(parseAddress("10.0.0.5/8")?.hostBitsSet).toBe(true);
    expect(parseAddress("10.0.0.0/7")?.hostBitsSet).toBe(false);
    expect(parseAddress("10.1.0.0/15")?.hostBitsSet).toBe(true);
    expect(parseAddress("fd00::1/127")?.hostBitsSet).toBe(true);
    expect(parseAddress("fd00::2/127")?.hostBitsSet).toBe(false);
    expect(parseAddress("fd00:0:0:1::/63")?.hostBitsSet).toBe(true);
  });

  it("expands compressed and IPv4-embedded IPv6 forms before checking host bits", () => {
    expect(parseAddress("::ffff:10.0.0.0/104")?.hostBitsSet).toBe(false);
    expect(parseAddress("::ffff:10.0.0.1/120")?.hostBitsSet).toBe(true);
    expect(parseAddress("::10.0.0.0/104")?.hostBitsSet).toBe(false);
    expect(parseAddress("1:2:3:4:5:6:7:8/128")?.hostBitsSet).toBe(false);
    expect(parseAddress("1:2:3:4:5:6:7:8/112")?.hostBitsSet).toBe(true);
  });

  it("refuses zone ids, which node accepts as IPv6 but would carry arbitrary text", () => {
    expect(parseAddress("fe80::1%eth0")).toBeUndefined();
  });

  it("refuses prefix lengths out of range or written with leading zeros", () => {
    expect(parseAddress("10.0.0.0/33")).toBeUndefined();
    expect(parseAddress("fd00::/129")).toBeUndefined();
    expect(parseAddress("10.0.0.0/08")).toBeUndefined();
    expect(parseAddress("10.0.0.0/-1")).toBeUndefined();
  });
});

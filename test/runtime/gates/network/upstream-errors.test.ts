import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseUpstream, systemResolver } from "../../../../runtime/gates/network/dns/upstream.js";

/** The upstream resolver's problems are the config's to fix: config errors (exit 6), never "internal error". */
describe("the upstream resolver's errors", () => {
  const dir = mkdtempSync(join(tmpdir(), "forage-upstream-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("refuses a name or a bad port as a config error, with an example", () => {
    for (const text of ["dns.example", "192.0.2.53:0", "[2001:db8::1]:70000"]) {
      expect(() => parseUpstream(text)).toThrow(
        expect.objectContaining({
          name: "SandboxError",
          kind: "config",
          message: expect.stringContaining('e.g. "192.0.2.53"'),
        }),
      );
    }
    expect(parseUpstream("[2001:db8::1]:5353")).toEqual({ address: "2001:db8::1", port: 5353 });
  });

  it("says to set network.upstreamResolver when resolv.conf names no usable nameserver", async () => {
    const file = join(dir, "resolv.conf");
    writeFileSync(file, "search example\nnameserver resolver.example\n");
    await expect(systemResolver(file)).rejects.toThrow(
      expect.objectContaining({
        kind: "config",
        message: `${file} names no nameserver: set network.upstreamResolver in the Forage config`,
      }),
    );
  });
});

import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { printNftTable } from "../../../../generator/emit/nft/index.js";
import { hostPolicyTable, hostPolicyTableRef } from "../../../../generator/policy/network/host-table.js";
import { inSandboxTable, inSandboxTableRef } from "../../../../generator/policy/network/in-sandbox-table.js";
import { sandboxLink } from "../../../../generator/policy/network/sandbox-link.js";
import { AllowedAddresses } from "../../../../runtime/gates/network/allowed-addresses.js";
import type { ResolvedAddress } from "../../../../runtime/gates/network/dns/dns-filter.js";
import { SetElementWriter } from "../../../../runtime/gates/network/set-element-writer.js";
import { isRoot, toolsAvailable } from "../../../support/tools.js";

// The allowed sets of a host-side and an in-sandbox table, each loaded in a network namespace
// this test makes (standing in for the host's and the sandbox's), filled by the real writer.
const tools = toolsAvailable("nft", "ip");
const hostNs = `fah${process.pid % 100_000}`;
const sandboxNs = `fas${process.pid % 100_000}`;
const link = sandboxLink(7, "10.100");
const nft = (namespace: string, ...args: string[]): string =>
  execFileSync("ip", ["netns", "exec", namespace, "nft", ...args], { encoding: "utf8" });
const load = (namespace: string, script: string): string =>
  execFileSync("ip", ["netns", "exec", namespace, "nft", "-f", "-"], { input: script, encoding: "utf8" });
const writer = (namespace: string): SetElementWriter => new SetElementWriter(`/run/netns/${namespace}`);
const resolved = (address: string, ports: number[] | null = null, ttl = 60): ResolvedAddress => ({
  address,
  family: address.includes(":") ? 6 : 4,
  ports,
  ttl,
  name: "api.example",
  chain: [],
});

describe.skipIf(!tools.run || !isRoot())("the addresses admitted to a sandbox's allowed sets", () => {
  const writers = { host: writer(hostNs), sandbox: writer(sandboxNs) };
  let now = 1_000_000;
  const allowed = new AllowedAddresses(
    { table: hostPolicyTableRef(link), writer: writers.host },
    { table: inSandboxTableRef, writer: writers.sandbox },
    () => now,
  );
  beforeAll(() => {
    for (const namespace of [hostNs, sandboxNs]) execFileSync("ip", ["netns", "add", namespace]);
    load(
      hostNs,
      printNftTable(hostPolicyTable(link, { mode: "restricted", sni: false }, null, null), { replace: true }),
    );
    load(sandboxNs, printNftTable(inSandboxTable("10.100", "restricted", null, "t"), { replace: true }));
  });
  afterAll(() => {
    writers.host.close();
    writers.sandbox.close();
    for (const namespace of [hostNs, sandboxNs]) execFileSync("ip", ["netns", "delete", namespace]);
  });

  it("are in both tables by the time admit resolves, ported ones with their ports", async () => {
    await allowed.admit([resolved("192.0.2.10"), resolved("2001:db8::10"), resolved("192.0.2.11", [443, 8443])]);
    for (const namespace of [hostNs, sandboxNs]) {
      const table = namespace === hostNs ? "forage_f7" : "forage";
      expect(nft(namespace, "list", "set", "inet", table, "allowed4")).toContain("192.0.2.10 ");
      expect(nft(namespace, "list", "set", "inet", table, "allowed6")).toContain("2001:db8::10 ");
      expect(nft(namespace, "list", "set", "inet", table, "allowed4_port")).toMatch(
        /192\.0\.2\.11 \. 443 .*192\.0\.2\.11 \. 8443 /s,
      );
    }
    expect(allowed.lookup("192.0.2.10")?.name).toBe("api.example");
  });

  it("renew an element that would end before a client's cache of the answer, and leave a fresh one be", async () => {
    const timeoutOf = (): string =>
      /192\.0\.2\.10 timeout (\S+)/.exec(nft(hostNs, "list", "set", "inet", "forage_f7", "allowed4"))?.[1] ?? "";
    await allowed.admit([resolved("192.0.2.10")]);
    expect(timeoutOf()).toBe("5m");
    now += 290_000; // 10 s of the element's 300 left: less than the answer's 60 s TTL
    await allowed.admit([resolved("192.0.2.10", null, 3600)]);
    expect(timeoutOf()).toBe("2h");
  });

  it("never outlive an approval's end, and go from both tables when it is taken back", async () => {
    const ported = (namespace: string, table: string): string =>
      nft(namespace, "list", "set", "inet", table, "allowed4_port");
    await allowed.admit([{ ...resolved("192.0.2.40", [443], 3600), untilMs: now + 90_000 }]);
    expect(ported(hostNs, "forage_f7")).toMatch(/192\.0\.2\.40 \. 443 timeout 1m30s/);
    // A later answer while the approval runs does not stretch it.
    now += 30_000;
    await allowed.admit([{ ...resolved("192.0.2.40", [443], 3600), untilMs: now + 60_000 }]);
    expect(ported(hostNs, "forage_f7")).toMatch(/192\.0\.2\.40 \. 443 timeout 1m30s expires/);
    await allowed.revoke("api.example", 443, ["192.0.2.40"]);
    for (const [namespace, table] of [
      [hostNs, "forage_f7"],
      [sandboxNs, "forage"],
    ] as const)
      expect(ported(namespace, table)).not.toContain("192.0.2.40");
    expect(allowed.lookup("192.0.2.40")).toBeUndefined();
    // Taken back again (or after the kernel dropped it), it is no error.
    await allowed.revoke("api.example", 443, ["192.0.2.40"]);
  });

  it("keep an address an allowlisted name shares with an approved one when the approval ends", async () => {
    const ported = (): string => nft(hostNs, "list", "set", "inet", "forage_f7", "allowed4_port");
    // The control: the address the approved name had alone goes at its end (above); here the allowlisted name holds it first.
    await allowed.admit([{ ...resolved("192.0.2.41", [443], 3600), name: "cdn.allowed.example" }]);
    await allowed.admit([{ ...resolved("192.0.2.41", [443], 3600), untilMs: now + 60_000 }]);
    await allowed.revoke("api.example", 443, ["192.0.2.41"]);
    expect(ported()).toMatch(/192\.0\.2\.41 \. 443 timeout 2h/);
    expect(allowed.lookup("192.0.2.41")?.name).toBe("cdn.allowed.example");
  });

  it("still answer when the sandbox's root removed its own table (the host's holds)", async () => {
    nft(sandboxNs, "flush", "ruleset");
    const failures = allowed.mirrorFailures;
    await allowed.admit([resolved("192.0.2.20")]);
    expect(allowed.mirrorFailures).toBe(failures + 1);
    expect(nft(hostNs, "list", "set", "inet", "forage_f7", "allowed4")).toContain("192.0.2.20 ");
  });

  it("after a policy change, hold again only what the new policy still allows, in one transaction", async () => {
    await allowed.admit([
      { ...resolved("192.0.2.40"), name: "gone.example" },
      { ...resolved("192.0.2.41"), name: "kept.example" },
    ]);
    await allowed.readmit(true, (name) => (name === "gone.example" ? false : null));
    const listed = nft(hostNs, "list", "set", "inet", "forage_f7", "allowed4");
    expect(listed).toContain("192.0.2.41 ");
    expect(listed).not.toContain("192.0.2.40 ");
    expect(allowed.lookup("192.0.2.40")).toBeUndefined();
  });

  it("fail the admission when the host's table refuses it, so no answer goes out", async () => {
    load(hostNs, "table inet forage_f7\ndelete table inet forage_f7\n");
    await expect(allowed.admit([resolved("192.0.2.30")])).rejects.toThrow(/refused/);
  });
});

import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { printNftTable, type NftSet, type NftTable } from "../../../../generator/emit/nft/index.js";
import { allowedSets } from "../../../../generator/policy/network/policy-sets.js";
import type { SetElementOp } from "../../../../runtime/gates/network/set-element-request.js";
import { SetElementsRefusedError, SetElementWriter } from "../../../../runtime/gates/network/set-element-writer.js";
import { isRoot, toolsAvailable } from "../../../support/tools.js";

// The writer and its native helper against the real kernel, in a network namespace this test
// makes (never the host's ruleset); nft only loads the table and reads it back.
const tools = toolsAvailable("nft", "ip");
const namespace = `fwt${process.pid % 100_000}`;
const netns = `/run/netns/${namespace}`;
const table: NftTable = { family: "inet", name: "forage_t", sets: Object.values(allowedSets), chains: [] };
const missing = { family: "inet", name: "forage_nosuch" } as const;
const load = (script: string): string =>
  execFileSync("ip", ["netns", "exec", namespace, "nft", "-f", "-"], { input: script, encoding: "utf8" });
const listed = (set: NftSet = allowedSets.v4): string =>
  execFileSync("ip", ["netns", "exec", namespace, "nft", "list", "set", "inet", "forage_t", set.name], {
    encoding: "utf8",
  });
const add = (...addresses: string[]): SetElementOp[] => [
  { op: "add", set: allowedSets.v4, elements: addresses.map((value) => ({ value, timeout: 300 })) },
];

describe.skipIf(!tools.run || !isRoot())("the writer of set elements", () => {
  let writer: SetElementWriter;
  beforeAll(() => {
    execFileSync("ip", ["netns", "add", namespace]);
    load(printNftTable(table, { replace: true }));
    writer = new SetElementWriter(netns);
  });
  afterAll(() => {
    writer.close();
    execFileSync("ip", ["netns", "delete", namespace]);
  });

  it("resolves only once the kernel has committed the elements, with their timeouts, in every kind of allowed set", async () => {
    await writer.run(table, [
      ...add("192.0.2.1"),
      { op: "add", set: allowedSets.v6, elements: [{ value: "2001:db8::1", timeout: 600 }] },
      { op: "add", set: allowedSets.v4Port, elements: [{ value: ["192.0.2.2", 443], timeout: 90 }] },
      { op: "add", set: allowedSets.v6Port, elements: [{ value: ["2001:db8::2", 8443], timeout: 3600 }] },
    ]);
    expect(listed()).toMatch(/192\.0\.2\.1 timeout 5m/);
    expect(listed(allowedSets.v6)).toMatch(/2001:db8::1 timeout 10m/);
    expect(listed(allowedSets.v4Port)).toMatch(/192\.0\.2\.2 \. 443 timeout 1m30s/);
    expect(listed(allowedSets.v6Port)).toMatch(/2001:db8::2 \. 8443 timeout 1h/);
  });

  it("rejects a request the kernel refuses, saying why, and the next request still goes through", async () => {
    await expect(writer.run(missing, add("192.0.2.3"))).rejects.toThrow(SetElementsRefusedError);
    await expect(writer.run(missing, add("192.0.2.3"))).rejects.toThrow(/No such file or directory/);
    await writer.run(table, add("192.0.2.4"));
    expect(listed()).toContain("192.0.2.4 ");
  });

  it("answers requests sent while others are in flight each on their own, a refused one failing alone", async () => {
    const results = await Promise.allSettled([
      writer.run(table, add("192.0.2.10")),
      writer.run(missing, add("192.0.2.9")),
      writer.run(table, add("192.0.2.11")),
      writer.run(table, add("192.0.2.10")),
    ]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect(listed()).toContain("192.0.2.10 ");
    expect(listed()).toContain("192.0.2.11 ");
  });

  it("commits a request as one transaction: an op the kernel refuses leaves the others undone", async () => {
    const flushThenBad: SetElementOp[] = [
      { op: "flush", set: allowedSets.v4 },
      { op: "add", set: { ...allowedSets.v4, name: "nosuch" }, elements: [{ value: "192.0.2.12" }] },
    ];
    await expect(writer.run(table, flushThenBad)).rejects.toThrow(SetElementsRefusedError);
    expect(listed()).toContain("192.0.2.1 ");
  });

  it("renews a timeout by add, delete and add in one request, and empties a set with flush", async () => {
    const element = [{ value: "192.0.2.1", timeout: 900 }];
    await writer.run(table, [
      { op: "add", set: allowedSets.v4, elements: element },
      { op: "delete", set: allowedSets.v4, elements: element },
      { op: "add", set: allowedSets.v4, elements: element },
    ]);
    expect(listed()).toMatch(/192\.0\.2\.1 timeout 15m/);
    await writer.run(table, [{ op: "flush", set: allowedSets.v4 }]);
    expect(listed()).not.toContain("elements");
  });

  it("writes many elements at once (a policy change re-admitting them), past what one message holds", async () => {
    const many = Array.from(
      { length: 5000 },
      (_, i) => `10.${1 + Math.floor(i / 65536)}.${Math.floor(i / 256) % 256}.${i % 256}`,
    );
    await writer.run(table, [{ op: "flush", set: allowedSets.v4 }, ...add(...many)]);
    const count = (listed().match(/\d+\.\d+\.\d+\.\d+ timeout/g) ?? []).length;
    expect(count).toBe(5000);
  });

  it("keeps writing after the table was replaced from outside, as a policy change does", async () => {
    load(printNftTable(table, { replace: true }));
    await writer.run(table, add("192.0.2.20"));
    expect(listed()).toContain("192.0.2.20 ");
  });

  it("refuses a request once closed instead of starting a helper again", async () => {
    const closed = new SetElementWriter(netns);
    await closed.run(table, add("192.0.2.40"));
    closed.close();
    await expect(closed.run(table, add("192.0.2.41"))).rejects.toThrow("the set-element writer is closed");
    expect(closed.pid).toBeUndefined();
    expect(listed()).not.toContain("192.0.2.41 ");
  });

  it("starts a new helper when its process died, and the request is written", async () => {
    await writer.run(table, add("192.0.2.30"));
    const before = writer.pid;
    if (before === undefined) throw new Error("no helper runs");
    process.kill(before, "SIGKILL");
    await writer.run(table, add("192.0.2.31"));
    expect(writer.pid).not.toBe(before);
    expect(listed()).toContain("192.0.2.31 ");
  });

  it("ends a helper idle for a while, and starts another for the next request", async () => {
    const idle = new SetElementWriter(netns, { idleMs: 200 });
    await idle.run(table, add("192.0.2.45"));
    const first = idle.pid ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(() => process.kill(first, 0)).toThrow();
    await idle.run(table, add("192.0.2.46"));
    expect(idle.pid).not.toBe(first);
    expect(listed()).toContain("192.0.2.46 ");
    idle.close();
  });

  it("fails a request not answered in time (a process that reads nothing stands in for a hung helper)", async () => {
    const hung = new SetElementWriter(null, { command: ["sleep", "30"], timeoutMs: 300 });
    await expect(hung.run(table, add("192.0.2.50"))).rejects.toThrow("did not answer in 0.3 s");
    hung.close();
  });

  it("fails, saying why, when the namespace is gone or the helper cannot run", async () => {
    await expect(
      new SetElementWriter("/run/netns/forage-no-such-namespace").run(table, add("192.0.2.60")),
    ).rejects.toThrow(/No such file or directory/);
    await expect(
      new SetElementWriter(null, { command: ["/nonexistent/forage-set-elements"] }).run(table, add("192.0.2.60")),
    ).rejects.toThrow(/ENOENT/);
  });
});

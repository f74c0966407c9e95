import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { printNftElements, printNftFlushSets, printNftTable, type NftSet, type NftTable } from "../../../generator/emit/nft/index.js";
import { NftRefusedError, NftWriter } from "../../../runtime/network/nft-writer.js";
import { isRoot, toolsAvailable } from "../../support/tools.js";

// The writer against the real nft, in a network namespace this test makes (never the host's ruleset).
const tools = toolsAvailable("nft", "ip", "nsenter");
const namespace = `fwt${process.pid % 100_000}`;
const set: NftSet = { name: "allowed4", type: "ipv4_addr", flags: ["timeout"] };
const table: NftTable = { family: "inet", name: "forage_t", sets: [set], chains: [] };
const load = (script: string): string => execFileSync("ip", ["netns", "exec", namespace, "nft", "-f", "-"], { input: script, encoding: "utf8" });
const listed = (): string => execFileSync("ip", ["netns", "exec", namespace, "nft", "list", "set", "inet", "forage_t", "allowed4"], { encoding: "utf8" });
const add = (...addresses: string[]): string =>
  printNftElements(
    table,
    set,
    addresses.map((value) => ({ value, timeout: 300 })),
  );
const writerArgv: [string, ...string[]] = ["nsenter", `--net=/run/netns/${namespace}`, "--", "nft", "-i"];

describe.skipIf(!tools.run || !isRoot())("the long-lived nft writer", () => {
  let writer: NftWriter;
  beforeAll(() => {
    execFileSync("ip", ["netns", "add", namespace]);
    load(printNftTable(table, { replace: true }));
    writer = new NftWriter(writerArgv);
  });
  afterAll(() => {
    writer.close();
    execFileSync("ip", ["netns", "delete", namespace]);
  });

  it("resolves only once nft has committed the script", async () => {
    await writer.run(add("192.0.2.1"));
    expect(listed()).toContain("192.0.2.1");
  });

  it("rejects a script nft refuses, naming nft's error, and the next script still goes through", async () => {
    await expect(writer.run(printNftElements({ family: "inet", name: "forage_nosuch" }, set, [{ value: "192.0.2.2" }]))).rejects.toThrow(NftRefusedError);
    await writer.run(add("192.0.2.3"));
    expect(listed()).toContain("192.0.2.3");
  });

  it("answers scripts sent while others are in flight each on their own, a refused one failing alone", async () => {
    const bad = printNftElements({ family: "inet", name: "forage_nosuch" }, set, [{ value: "192.0.2.9" }]);
    const results = await Promise.allSettled([writer.run(add("192.0.2.10")), writer.run(bad), writer.run(add("192.0.2.11")), writer.run(add("192.0.2.10"))]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect(listed()).toMatch(/192\.0\.2\.10[^0-9].*192\.0\.2\.11|192\.0\.2\.11[^0-9].*192\.0\.2\.10/s);
  });

  it("commits a script as one transaction: a refused command leaves the others undone", async () => {
    const flushThenBad = printNftFlushSets(table, [set]) + printNftElements({ family: "inet", name: "forage_nosuch" }, set, [{ value: "192.0.2.12" }]);
    await expect(writer.run(flushThenBad)).rejects.toThrow(NftRefusedError);
    expect(listed()).toContain("192.0.2.1 ");
  });

  it("keeps writing after the table was replaced from outside, as a policy change does", async () => {
    load(printNftTable(table, { replace: true }));
    await writer.run(add("192.0.2.20"));
    expect(listed()).toContain("192.0.2.20");
    expect(listed()).not.toContain("192.0.2.1 ");
  });

  it("starts a new nft when its process died, and the script is written", async () => {
    await writer.run(add("192.0.2.30"));
    const before = writer.pid;
    process.kill(before ?? 0, "SIGKILL");
    await writer.run(add("192.0.2.31"));
    expect(writer.pid).not.toBe(before);
    expect(listed()).toContain("192.0.2.31");
  });

  it("replaces its process once it has written its share of lines, without losing a script", async () => {
    const short = new NftWriter(writerArgv, { maxLines: 2 });
    await short.run(add("192.0.2.40"));
    await short.run(add("192.0.2.41"));
    const first = short.pid;
    await short.run(add("192.0.2.42"));
    expect(short.pid).not.toBe(first);
    expect(listed()).toContain("192.0.2.42");
    short.close();
  });

  it("ends a process idle for a while, and starts another for the next script", async () => {
    const idle = new NftWriter(writerArgv, { idleMs: 200 });
    await idle.run(add("192.0.2.45"));
    const first = idle.pid ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(() => process.kill(first, 0)).toThrow();
    await idle.run(add("192.0.2.46"));
    expect(idle.pid).not.toBe(first);
    expect(listed()).toContain("192.0.2.46");
    idle.close();
  });

  it("fails a script not answered in time (a process that reads nothing stands in for a hung nft)", async () => {
    const hung = new NftWriter(["sleep", "30"], { timeoutMs: 300 });
    await expect(hung.run(add("192.0.2.50"))).rejects.toThrow("did not answer in 0.3 s");
    hung.close();
  });

  it("fails when nft cannot be run at all", async () => {
    await expect(new NftWriter(["/nonexistent/nft", "-i"]).run(add("192.0.2.60"))).rejects.toThrow(/ENOENT/);
  });
});

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DenialLog, RefusalTally, readDenials } from "../../../../runtime/gates/network/denials.js";

describe("denial records", () => {
  const directory = mkdtempSync(join(tmpdir(), "forage-denials-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it("counts a repeated refusal once per interval, and keeps only a record's fields (the reader refuses others)", async () => {
    const tally = new RefusalTally();
    // The DNS filter's refusals carry the query type too; a record with it would be skipped when read.
    const fromFilter = { kind: "dns" as const, name: "blocked.example", type: 1, rule: "not in allow" };
    tally.add(fromFilter);
    const askedForAaaa = { ...fromFilter, type: 28 };
    tally.add(askedForAaaa);
    tally.add({ kind: "sni", port: 443, rule: "no name" });
    const taken = tally.take(new Date("2026-01-01T00:00:00Z"));
    expect(taken).toEqual([
      { time: "2026-01-01T00:00:00.000Z", kind: "dns", name: "blocked.example", rule: "not in allow", count: 2 },
      { time: "2026-01-01T00:00:00.000Z", kind: "sni", port: 443, rule: "no name", count: 1 },
    ]);
    expect(tally.take()).toEqual([]);
    await new DenialLog(directory).append(taken);
    expect(await readDenials(directory)).toEqual(taken);
  });
});

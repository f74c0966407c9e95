import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { readStatusFile, writeStatusFile } from "../../../runtime/core/status-file.js";
import { recordEvent, readEvents } from "../../../runtime/core/audit-log.js";
import { eventsPath, runtimePaths } from "../../../runtime/core/paths.js";

const schema = z.object({ pid: z.number().int().positive(), port: z.number().int() });

describe("status files", () => {
  const dir = mkdtempSync(join(tmpdir(), "forage-status-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes whole, with its mode, leaving no temporary behind, and reads back what it wrote", async () => {
    const file = join(dir, "s.json");
    await writeStatusFile(file, { pid: 7, port: 80 }, 0o640);
    expect(statSync(file).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir)).toEqual(["s.json"]);
    expect(await readStatusFile(file, schema)).toEqual({ pid: 7, port: 80 });
  });

  it("reads none from a missing file, a torn one, or one of another shape (no cast lets it through)", async () => {
    expect(await readStatusFile(join(dir, "missing.json"), schema)).toBeUndefined();
    writeFileSync(join(dir, "torn.json"), '{"pid": 7, "po');
    expect(await readStatusFile(join(dir, "torn.json"), schema)).toBeUndefined();
    writeFileSync(join(dir, "other.json"), '{"pid": "7", "port": 80}');
    expect(await readStatusFile(join(dir, "other.json"), schema)).toBeUndefined();
  });
});

describe("the audit log", () => {
  const dir = mkdtempSync(join(tmpdir(), "forage-audit-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reads back the events it wrote, and skips lines that are not events: not JSON, or JSON of another shape", async () => {
    const paths = runtimePaths(dir, {});
    await recordEvent(paths, "demo", "create");
    writeFileSync(
      eventsPath(paths, "demo"),
      '42\n{"time": "t"}\n{"time":"t","sandbox":"demo","event":"launch"}\nnot json\n',
      { flag: "a" },
    );
    await recordEvent(paths, "demo", "exec", { detail: "ls (0 args)", exitCode: 0 });
    const events = await readEvents(paths, "demo");
    expect(events.map((event) => event.event)).toEqual(["create", "exec"]);
    expect(events[1]).toMatchObject({ sandbox: "demo", detail: "ls (0 args)", exitCode: 0 });
  });
});

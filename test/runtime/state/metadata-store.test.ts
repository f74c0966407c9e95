import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { runtimePaths } from "../../../runtime/core/paths.js";
import { SandboxError } from "../../../runtime/core/errors.js";
import { readMetadata } from "../../../runtime/state/metadata-store.js";

describe("reading a sandbox's metadata that was damaged", () => {
  const dir = mkdtempSync(join(tmpdir(), "forage-metadata-"));
  const paths = runtimePaths(dir, {});
  const write = (name: string, text: string): void => {
    mkdirSync(paths.sandboxesDir, { recursive: true });
    writeFileSync(join(paths.sandboxesDir, `${name}.json`), text);
  };
  afterEach(() => rmSync(paths.sandboxesDir, { recursive: true, force: true }));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is a user-facing error (not a bug) naming every problem with its field, and what to do", async () => {
    write("broken", JSON.stringify({ name: "broken", slot: "one", template: 7 }));
    const error = await readMetadata(paths, "broken").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxError);
    const message = (error as SandboxError).message;
    expect(message).toContain(join(paths.sandboxesDir, "broken.json"));
    expect(message).toMatch(/slot: /);
    expect(message).toMatch(/template: /);
    expect(message).toContain("restore or remove the file");
  });

  it("says so when the file is not JSON at all", async () => {
    write("torn", '{"name": "torn", "slo');
    await expect(readMetadata(paths, "torn")).rejects.toThrow(/torn\.json is not valid sandbox metadata: not JSON/);
  });

  it("control: a missing file is no error, only absent", async () => {
    expect(await readMetadata(paths, "absent")).toBeUndefined();
  });
});

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../generator/config/load-config.js";
import { generateFiles } from "../../../generator/generate.js";
import { resolveModel } from "../../../generator/model/resolve.js";

describe("secrets and the generator", () => {
  let dir = "";
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "forage-secret-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("records only the secret's path: its value appears in no generated file", async () => {
    const value = `sk-ant-${Math.random().toString(36).slice(2)}-do-not-leak`;
    const secretFile = join(dir, "anthropic-key");
    writeFileSync(secretFile, value, { mode: 0o600 });
    writeFileSync(
      join(dir, "forage.yaml"),
      [
        "user: alice",
        `secrets: { anthropic: ${JSON.stringify(secretFile)} }`,
        "templates:",
        "  t:",
        "    agents: { claude: { package: claude-code, secretName: anthropic, authEnvVar: ANTHROPIC_API_KEY } }",
        "",
      ].join("\n"),
    );
    const loaded = await loadConfig("forage.yaml", dir);
    const files = generateFiles(resolveModel(loaded.config, "forage.yaml"));
    const everything = files.map((f) => f.contents).join("\n");
    expect(everything).toContain(secretFile);
    expect(everything).toContain("/run/secrets");
    expect(everything).not.toContain(value);
    expect(readFileSync(secretFile, "utf8")).toBe(value);
  });
});

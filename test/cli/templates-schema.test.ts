import { existsSync } from "node:fs";
import { copyFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { examples, makeTempDir, removeTempDir, runCli } from "./run-cli.js";

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await removeTempDir(dir);
});

describe("forage-ctl templates", () => {
  it("prints a table with the columns TEMPLATE AGENTS NETWORK DESCRIPTION, one row per template", async () => {
    await copyFile(examples.yaml, join(dir, "forage.yaml"));
    const result = await runCli(["templates"], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe("");
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]?.split(/\s+/)).toEqual(["TEMPLATE", "AGENTS", "NETWORK", "DESCRIPTION"]);
    expect(lines.slice(1).map((line) => line.split(/\s{2,}/))).toEqual([
      ["base", "-", "none", "Shared tools, no network"],
      ["trio", "claude,codex,gemini", "restricted", "Claude Code, Codex and Gemini CLI in one tmux session"],
    ]);
  });

  it("aligns the columns", async () => {
    await copyFile(examples.yaml, join(dir, "forage.yaml"));
    const lines = (await runCli(["templates"], { cwd: dir })).stdout.trimEnd().split("\n");
    const networkColumn = lines[0]?.indexOf("NETWORK");
    for (const line of lines.slice(1))
      expect(line.indexOf(line.includes("restricted") ? "restricted" : "none")).toBe(networkColumn);
  });

  it("--json prints parseable JSON with each template's name, agents and network", async () => {
    await copyFile(examples.yaml, join(dir, "forage.yaml"));
    const result = await runCli(["templates", "--json"], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      { name: "base", description: "Shared tools, no network", agents: [], network: "none", allow: [] },
      {
        name: "trio",
        description: "Claude Code, Codex and Gemini CLI in one tmux session",
        agents: ["claude", "codex", "gemini"],
        network: "restricted",
        allow: ["api.anthropic.com", "api.openai.com", "generativelanguage.googleapis.com"],
      },
    ]);
  });

  it("reads the config named by the global --config option", async () => {
    const result = await runCli(["--config", examples.json, "templates", "--json"], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect((JSON.parse(result.stdout) as { name: string }[]).map((t) => t.name)).toEqual(["fullstack"]);
  });

  it("reads the config named by FORAGE_CONFIG", async () => {
    const result = await runCli(["templates", "--json"], { cwd: dir, env: { FORAGE_CONFIG: examples.typescript } });
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      expect.objectContaining({
        name: "claude",
        agents: ["claude"],
        network: "restricted",
        allow: ["api.anthropic.com", "*.github.com:443", "github.com:443"],
      }),
    ]);
  });

  it("prefers --config over FORAGE_CONFIG", async () => {
    const result = await runCli(["--config", examples.json, "templates", "--json"], {
      cwd: dir,
      env: { FORAGE_CONFIG: examples.typescript },
    });
    expect((JSON.parse(result.stdout) as { name: string }[]).map((t) => t.name)).toEqual(["fullstack"]);
  });

  it.skipIf(existsSync("/etc/forage/forage.json"))(
    "exits 6 when there is no config here and none installed, naming where it looked (as up does)",
    async () => {
      const result = await runCli(["templates"], { cwd: dir });
      expect(result.exitCode).toBe(6);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(
        /no settings: no --config or FORAGE_CONFIG, none of forage\.config\.ts, forage\.yaml, forage\.json in .*, and \/etc\/forage\/forage\.json does not exist/,
      );
    },
  );
});

/** Every object key anywhere in a JSON value. */
function allKeys(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(allKeys);
  if (value !== null && typeof value === "object")
    return Object.entries(value).flatMap(([key, inner]) => [key, ...allKeys(inner)]);
  return [];
}

describe("forage-ctl schema", () => {
  it("prints a valid JSON Schema object with the properties user and templates", async () => {
    const result = await runCli(["schema"], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe("");
    const schema = JSON.parse(result.stdout) as {
      type?: string;
      properties?: Record<string, unknown>;
      required?: string[];
    };
    expect(schema.type).toBe("object");
    expect(Object.keys(schema.properties ?? {})).toEqual(expect.arrayContaining(["user", "templates"]));
    expect(schema.required).toEqual(expect.arrayContaining(["user", "templates"]));
  });

  it("contains no generator-only metadata keys (nixType, nixModule, nixCoerceTo, any nix…) anywhere", async () => {
    const result = await runCli(["schema"], { cwd: dir });
    const keys = allKeys(JSON.parse(result.stdout));
    expect(keys.length).toBeGreaterThan(50);
    expect(keys.filter((key) => key.startsWith("nix"))).toEqual([]);
    expect(result.stdout).not.toMatch(/"nix[A-Z][A-Za-z]*"/);
  });

  it("carries the field descriptions editors show", async () => {
    const schema = JSON.parse((await runCli(["schema"], { cwd: dir })).stdout) as {
      properties: Record<string, { description?: string }>;
    };
    expect(schema.properties.user?.description).toMatch(/Host user/);
  });
});

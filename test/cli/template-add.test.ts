import { copyFile, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { examples, makeTempDir, removeTempDir, runCli, stackFrame } from "./run-cli.js";

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await removeTempDir(dir);
});

/** True when `lines` contains every line of `expected`, in the same order (others may sit between). */
function containsInOrder(lines: string[], expected: string[]): boolean {
  let next = 0;
  for (const line of lines) if (next < expected.length && line === expected[next]) next++;
  return next === expected.length;
}

async function templateNames(cwd: string, config: string): Promise<string[]> {
  const result = await runCli(["--config", config, "templates", "--json"], { cwd });
  expect(result.exitCode, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { name: string }[]).map((t) => t.name);
}

describe("forage-ctl template add on a TypeScript config", () => {
  let original: string;
  beforeEach(async () => {
    await copyFile(examples.typescript, join(dir, "forage.config.ts"));
    original = await readFile(join(dir, "forage.config.ts"), "utf8");
  });

  it("adds a template extending the given one, exits 0 and says so", async () => {
    const result = await runCli(["template", "add", "offline", "--from", "claude", "-d", "Claude, offline"], {
      cwd: dir,
    });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe('forage.config.ts: added template "offline" (extends "claude")\n');
    expect(await readFile(join(dir, "forage.config.ts"), "utf8")).toMatch(
      /"offline": \{ extends: "claude", description: "Claude, offline" \}/,
    );
  });

  it("leaves a config that validates and lists the new template", async () => {
    await runCli(["template", "add", "offline", "--from", "claude"], { cwd: dir });
    const result = await runCli(["validate"], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("forage.config.ts: valid (2 templates: claude, offline)\n");
  });

  it("keeps every comment line of the original file", async () => {
    await runCli(["template", "add", "offline", "--from", "claude"], { cwd: dir });
    const edited = (await readFile(join(dir, "forage.config.ts"), "utf8")).split("\n");
    const comments = original.split("\n").filter((line) => line.trim().startsWith("//"));
    expect(comments.length).toBeGreaterThanOrEqual(2);
    for (const comment of comments) expect(edited).toContain(comment);
  });

  it("keeps the original text byte for byte up to the end of the last existing template", async () => {
    await runCli(["template", "add", "offline", "--from", "claude"], { cwd: dir });
    const edited = await readFile(join(dir, "forage.config.ts"), "utf8");
    // The closing `  },` of `templates` is the only original line the insertion may touch.
    const templatesClose = original.lastIndexOf("\n  },\n");
    expect(templatesClose).toBeGreaterThan(0);
    expect(edited.startsWith(original.slice(0, templatesClose + 1))).toBe(true);
    expect(edited.endsWith("});\n")).toBe(true);
  });

  it("keeps every original line except the closing line of `templates`, in order", async () => {
    await runCli(["template", "add", "offline", "--from", "claude"], { cwd: dir });
    const edited = (await readFile(join(dir, "forage.config.ts"), "utf8")).split("\n");
    const lines = original.split("\n");
    const closeIndex = lines.lastIndexOf("  },");
    const kept = lines.filter((_, index) => index !== closeIndex);
    expect(containsInOrder(edited, kept)).toBe(true);
  });

  it("the new template inherits its parent's agents and network", async () => {
    await runCli(["template", "add", "offline", "--from", "claude"], { cwd: dir });
    const result = await runCli(["templates", "--json"], { cwd: dir });
    const offline = (JSON.parse(result.stdout) as { name: string; agents: string[]; network: string }[]).find(
      (t) => t.name === "offline",
    );
    expect(offline).toMatchObject({ agents: ["claude"], network: "restricted" });
  });

  it("writes a description given with quotes and backslashes as a string literal, not code", async () => {
    const description = 'say "hi" \\ `${process.exit(1)}`';
    const result = await runCli(["template", "add", "quoted", "--from", "claude", "-d", description], { cwd: dir });
    expect(result.exitCode).toBe(0);
    const templates = await runCli(["templates", "--json"], { cwd: dir });
    expect(
      (JSON.parse(templates.stdout) as { name: string; description: string }[]).find((t) => t.name === "quoted")
        ?.description,
    ).toBe(description);
  });
});

describe("forage-ctl template add on a YAML config", () => {
  const commented = [
    "# yaml-language-server: $schema=./forage.schema.json",
    "# Team sandboxes.",
    "user: alice # the host user",
    "secrets:",
    "  # from agenix",
    "  key: /run/agenix/key",
    "templates:",
    "  # The base everyone extends.",
    "  base:",
    "    description: Base tools",
    "    extraPackages:",
    "      - ripgrep # search",
    "      - jq",
    "  # Claude on top.",
    "  claude:",
    "    extends: base",
    "    agents:",
    "      claude:",
    "        package: claude-code",
    "        secretName: key",
    "        authEnvVar: ANTHROPIC_API_KEY",
    "# trailing comment",
    "",
  ].join("\n");

  it("adds the template and keeps every comment and original line, in order", async () => {
    await writeFile(join(dir, "forage.yaml"), commented);
    const result = await runCli(["template", "add", "extra", "--from", "claude", "-d", "Extra"], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('forage.yaml: added template "extra" (extends "claude")\n');
    const edited = (await readFile(join(dir, "forage.yaml"), "utf8")).split("\n");
    expect(
      containsInOrder(
        edited,
        commented.split("\n").filter((line) => line !== ""),
      ),
    ).toBe(true);
    expect(containsInOrder(edited, ["  extra:", "    extends: claude", "    description: Extra"])).toBe(true);
  });

  it("leaves a YAML config that validates and lists the new template", async () => {
    await writeFile(join(dir, "forage.yaml"), commented);
    await runCli(["template", "add", "extra", "--from", "claude"], { cwd: dir });
    expect(await templateNames(dir, "forage.yaml")).toEqual(["base", "claude", "extra"]);
  });

  it("keeps the comment of the shipped example", async () => {
    await copyFile(examples.yaml, join(dir, "forage.yaml"));
    const result = await runCli(["template", "add", "quad", "--from", "trio"], { cwd: dir });
    expect(result.exitCode).toBe(0);
    const edited = await readFile(join(dir, "forage.yaml"), "utf8");
    expect(
      edited.startsWith(
        "# Three agents side by side, sharing one base template. Claude's and Codex's keys never enter the\n",
      ),
    ).toBe(true);
    expect(await templateNames(dir, "forage.yaml")).toEqual(["base", "quad", "trio"]);
  });

  it("keeps the formatting of the lines it does not touch (flow lists stay as written)", async () => {
    // `template add` promises to keep the file's formatting; the shipped example uses `[a, b]` lists.
    await copyFile(examples.yaml, join(dir, "forage.yaml"));
    const original = (await readFile(join(dir, "forage.yaml"), "utf8")).split("\n");
    await runCli(["template", "add", "quad", "--from", "trio"], { cwd: dir });
    const edited = (await readFile(join(dir, "forage.yaml"), "utf8")).split("\n");
    expect(original.filter((line) => !edited.includes(line))).toEqual([]);
  });
});

describe("forage-ctl template add on a JSON config", () => {
  it("adds the template; the result validates and lists it", async () => {
    await copyFile(examples.json, join(dir, "forage.json"));
    const result = await runCli(["template", "add", "fullstack-ro", "--from", "fullstack", "-d", "Read-only"], {
      cwd: dir,
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('forage.json: added template "fullstack-ro" (extends "fullstack")\n');
    const json = JSON.parse(await readFile(join(dir, "forage.json"), "utf8")) as { templates: Record<string, unknown> };
    expect(json.templates["fullstack-ro"]).toEqual({ extends: "fullstack", description: "Read-only" });
    expect(await templateNames(dir, "forage.json")).toEqual(["fullstack", "fullstack-ro"]);
  });
});

describe("forage-ctl template add refusals", () => {
  it("exits 6 when the template already exists, leaving the file untouched", async () => {
    await copyFile(examples.yaml, join(dir, "forage.yaml"));
    const before = await readFile(join(dir, "forage.yaml"));
    const result = await runCli(["template", "add", "base", "--from", "trio"], { cwd: dir });
    expect(result.exitCode).toBe(6);
    expect(result.stderr).toBe('forage-ctl: forage.yaml: template "base" already exists\n');
    expect(result.stdout).toBe("");
    expect(await readFile(join(dir, "forage.yaml"))).toEqual(before);
  });

  it("exits 3 when --from names a template that does not exist, listing the known ones", async () => {
    await copyFile(examples.yaml, join(dir, "forage.yaml"));
    const before = await readFile(join(dir, "forage.yaml"));
    const result = await runCli(["template", "add", "quad", "--from", "nope"], { cwd: dir });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toBe('forage-ctl: forage.yaml: --from: template "nope" does not exist (known: base, trio)\n');
    expect(await readFile(join(dir, "forage.yaml"))).toEqual(before);
  });

  it("exits 64 for an invalid template name, leaving the file untouched", async () => {
    await copyFile(examples.typescript, join(dir, "forage.config.ts"));
    const before = await readFile(join(dir, "forage.config.ts"));
    const result = await runCli(["template", "add", "Bad_Name", "--from", "claude"], { cwd: dir });
    expect(result.exitCode).toBe(64);
    expect(result.stderr).toMatch(/^forage-ctl: template name "Bad_Name" must be 1-32 characters/);
    expect(result.stderr).not.toMatch(stackFrame);
    expect(await readFile(join(dir, "forage.config.ts"))).toEqual(before);
  });

  it("exits 6 when the config is invalid before the edit, without editing it", async () => {
    await writeFile(join(dir, "forage.yaml"), "user: alice\ntemplates:\n  t:\n    network: sometimes\n");
    const result = await runCli(["template", "add", "u", "--from", "t"], { cwd: dir });
    expect(result.exitCode).toBe(6);
    expect(await readFile(join(dir, "forage.yaml"), "utf8")).toBe(
      "user: alice\ntemplates:\n  t:\n    network: sometimes\n",
    );
  });

  it.each([
    ["TypeScript", "typescript", "forage.config.ts", "claude"],
    ["YAML", "yaml", "forage.yaml", "trio"],
    ["JSON", "json", "forage.json", "fullstack"],
  ] as const)(
    "restores the %s file byte for byte when the edited config would not validate",
    async (_format, example, name, parent) => {
      // GIVEN a description longer than the schema's 200-character limit: the edit is made, then fails validation
      await copyFile(examples[example], join(dir, name));
      const before = await readFile(join(dir, name));
      const result = await runCli(["template", "add", "long", "--from", parent, "-d", "x".repeat(201)], { cwd: dir });
      expect(result.exitCode).toBe(6);
      expect(result.stderr).toMatch(
        new RegExp(`^${name.replace(/\./g, "\\.")}(:\\d+:\\d+)?: templates\\.long\\.description: `),
      );
      expect(result.stdout).toBe("");
      expect(await readFile(join(dir, name))).toEqual(before);
    },
  );
});

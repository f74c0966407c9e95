import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempDir, removeTempDir, runCli, stackFrame } from "./run-cli.js";

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir();
});
afterEach(async () => {
  await removeTempDir(dir);
});

describe("forage-ctl init", () => {
  it("writes forage.config.ts in an empty directory and says what to run next", async () => {
    const result = await runCli(["init", "--user", "alice"], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("wrote forage.config.ts; next: forage-ctl validate forage.config.ts && forage-ctl generate forage.config.ts\n");
    expect(await readdir(dir)).toEqual(["forage.config.ts"]);
  });

  it("writes a config that passes validate (its `import from \"forage\"` resolves to forage-ctl itself)", async () => {
    await runCli(["init", "--user", "alice"], { cwd: dir });
    const text = await readFile(join(dir, "forage.config.ts"), "utf8");
    expect(text).toContain('from "forage"');
    const result = await runCli(["validate"], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("forage.config.ts: valid (1 template: default)\n");
    expect(result.stderr).toBe("");
  });

  it("writes a config that generate compiles", async () => {
    await runCli(["init", "--user", "alice"], { cwd: dir });
    const result = await runCli(["generate", "-o", "out"], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toBe("");
  });

  it("puts the given user, template name and Claude preset into the config", async () => {
    await runCli(["init", "--user", "alice", "--template", "work"], { cwd: dir });
    const result = await runCli(["templates", "--json"], { cwd: dir });
    expect(JSON.parse(result.stdout)).toEqual([
      expect.objectContaining({ name: "work", agents: ["claude"], network: "restricted", allow: ["api.anthropic.com"] }),
    ]);
    expect(await readFile(join(dir, "forage.config.ts"), "utf8")).toMatch(/^ {2}user: "alice",$/m);
  });

  it("defaults the user to $SUDO_USER", async () => {
    await runCli(["init"], { cwd: dir, env: { SUDO_USER: "bob" } });
    expect(await readFile(join(dir, "forage.config.ts"), "utf8")).toMatch(/^ {2}user: "bob",$/m);
  });

  it("with --agent codex writes a Codex template that validates", async () => {
    const result = await runCli(["init", "--user", "alice", "--agent", "codex"], { cwd: dir });
    expect(result.exitCode).toBe(0);
    const text = await readFile(join(dir, "forage.config.ts"), "utf8");
    expect(text).toContain('package: "codex"');
    expect(text).toContain('authEnvVar: "OPENAI_API_KEY"');
    const templates = await runCli(["templates", "--json"], { cwd: dir });
    expect(templates.exitCode).toBe(0);
    expect(JSON.parse(templates.stdout)).toEqual([expect.objectContaining({ name: "default", agents: ["codex"], allow: ["api.openai.com"] })]);
  });

  it("writes to the file named by --out", async () => {
    const result = await runCli(["init", "--user", "alice", "--out", "sandboxes.ts"], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(await readdir(dir)).toEqual(["sandboxes.ts"]);
    expect((await runCli(["validate", "sandboxes.ts"], { cwd: dir })).exitCode).toBe(0);
  });

  it("run again without --force, exits non-zero and leaves the existing file as it was", async () => {
    await writeFile(join(dir, "forage.config.ts"), "// mine\n");
    const result = await runCli(["init", "--user", "alice"], { cwd: dir });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe("forage-ctl: forage.config.ts already exists; pass --force to overwrite it\n");
    expect(result.stdout).toBe("");
    expect(await readFile(join(dir, "forage.config.ts"), "utf8")).toBe("// mine\n");
  });

  it("with --force overwrites the existing file", async () => {
    await writeFile(join(dir, "forage.config.ts"), "// mine\n");
    const result = await runCli(["init", "--user", "alice", "--force"], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(await readFile(join(dir, "forage.config.ts"), "utf8")).toContain("defineConfig");
  });

  it("refuses a user name that is not a Unix user name with exit 64, writing nothing", async () => {
    const result = await runCli(["init", "--user", 'bad"name'], { cwd: dir });
    expect(result.exitCode).toBe(64);
    expect(result.stderr).toBe('forage-ctl: --user: "bad"name" is not a valid Unix user name\n');
    expect(result.stderr).not.toMatch(stackFrame);
    expect(await readdir(dir)).toEqual([]);
  });

  it("refuses an invalid template name with exit 64, writing nothing", async () => {
    const result = await runCli(["init", "--user", "alice", "--template", "Not Valid"], { cwd: dir });
    expect(result.exitCode).toBe(64);
    expect(result.stderr).toMatch(/^forage-ctl: --template: "Not Valid" must be 1-32 characters/);
    expect(await readdir(dir)).toEqual([]);
  });

  it("refuses an unknown agent with exit 64, naming the known ones", async () => {
    const result = await runCli(["init", "--user", "alice", "--agent", "clippy"], { cwd: dir });
    expect(result.exitCode).toBe(64);
    expect(result.stderr).toMatch(/--agent: unknown agent "clippy"; choose one of claude, codex, gemini, aider, opencode/);
    expect(await readdir(dir)).toEqual([]);
  });
});

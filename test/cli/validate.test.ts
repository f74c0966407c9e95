import { existsSync } from "node:fs";
import { copyFile, writeFile } from "node:fs/promises";
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

describe("forage-ctl validate on the shipped examples", () => {
  it.each([
    ["examples/restricted-claude/forage.config.ts", "1 template: claude"],
    ["examples/multi-agent/forage.yaml", "2 templates: base, trio"],
    ["examples/mounts-beads/forage.json", "1 template: fullstack"],
  ])("%s is valid and its templates are named", async (path, templates) => {
    const result = await runCli(["validate", path]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(`${path}: valid (${templates})\n`);
    expect(result.stderr).toBe("");
  });

  it.each([
    ["examples/restricted-claude/forage.config.ts", ["claude"]],
    ["examples/multi-agent/forage.yaml", ["base", "trio"]],
    ["examples/mounts-beads/forage.json", ["fullstack"]],
  ])("--json on %s prints parseable JSON with valid: true", async (path, templates) => {
    const result = await runCli(["validate", "--json", path]);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ valid: true, config: path, templates });
    expect(result.stderr).toBe("");
  });
});

const multiErrorYaml = [
  'user: "Bad User"', //                                    1
  "templats: {}", //                                        2
  "authorizedKeys:", //                                     3
  '  - "ssh-foo AAAAB3NzaC1yc2E user@host"', //             4
  "templates:", //                                          5
  "  t:", //                                                6
  '    extraPackages: ["bad..path"]', //                    7
  "    network:", //                                        8
  "      mode: restricted", //                              9
  '      allow: ["10.0.0.1", "example.com:70000"]', //      10
  "  u:", //                                                11
  "    network: sometimes", //                              12
  "",
].join("\n");

describe("forage-ctl validate on a config with several errors", () => {
  it("exits 6 and prints every error as `file:line:col: path: message`, then a count", async () => {
    await writeFile(join(dir, "forage.yaml"), multiErrorYaml);
    const result = await runCli(["validate", "forage.yaml"], { cwd: dir });
    expect(result.exitCode).toBe(6);
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines.map((line) => /^([^:]+:\d+):\d+: (\S+): ./.exec(line)?.slice(1, 3).join(" "))).toEqual([
      "forage.yaml:1 user",
      "forage.yaml:2 templats",
      "forage.yaml:4 authorizedKeys[0]",
      "forage.yaml:7 templates.t.extraPackages[0]",
      "forage.yaml:10 templates.t.network.allow[0]",
      "forage.yaml:10 templates.t.network.allow[1]",
      "forage.yaml:12 templates.u.network",
      undefined, // the count line
    ]);
    expect(lines[0]).toBe(
      "forage.yaml:1:7: user: must be a Unix user name: 1-32 characters of a-z, 0-9, '_' and '-', starting with a letter or '_'",
    );
    expect(lines[4]).toMatch(
      /^forage\.yaml:10:15: templates\.t\.network\.allow\[0\]: must be a host name, not an IP address/,
    );
    expect(lines[5]).toMatch(
      /^forage\.yaml:10:27: templates\.t\.network\.allow\[1\]: port must be between 1 and 65535$/,
    );
    expect(lines.at(-1)).toBe("forage-ctl: 7 problems in the config");
  });

  it("prints nothing on stdout and no stack trace", async () => {
    await writeFile(join(dir, "forage.yaml"), multiErrorYaml);
    const result = await runCli(["validate", "forage.yaml"], { cwd: dir });
    expect(result.stdout).toBe("");
    expect(result.stderr).not.toMatch(stackFrame);
    expect(result.stderr).not.toMatch(/internal error|bug/);
  });

  it('says "1 problem" (singular) for a single error', async () => {
    await writeFile(join(dir, "forage.yaml"), "user: alice\ntemplates:\n  t:\n    network: sometimes\n");
    const result = await runCli(["validate"], { cwd: dir });
    expect(result.exitCode).toBe(6);
    expect(result.stderr).toBe(
      'forage.yaml:4:14: templates.t.network: must be "none", "restricted", "full" or an object\nforage-ctl: 1 problem in the config\n',
    );
  });

  it("exits 6 with --json too, reporting the errors on stderr and nothing on stdout", async () => {
    await writeFile(join(dir, "forage.yaml"), multiErrorYaml);
    const result = await runCli(["validate", "--json", "forage.yaml"], { cwd: dir });
    expect(result.exitCode).toBe(6);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/^forage\.yaml:1:7: user: /);
  });

  it("reports a TypeScript config's schema errors with file:line:col and path, without a stack", async () => {
    await writeFile(
      join(dir, "forage.config.ts"),
      'import { defineConfig } from "forage";\nexport default defineConfig({ user: "alice", templates: { t: { network: "sometimes" as never } } });\n',
    );
    const result = await runCli(["validate"], { cwd: dir });
    expect(result.exitCode).toBe(6);
    expect(result.stderr).toBe(
      'forage.config.ts:2:73: templates.t.network: must be "none", "restricted", "full" or an object\nforage-ctl: 1 problem in the config\n',
    );
    expect(result.stdout).toBe("");
  });

  it("reports every TypeScript syntax error at its file:line:col, saying what is wrong, without a stack", async () => {
    const text = [
      'import { defineConfig } from "forage";',
      "export default defineConfig({",
      '  user: "alice"',
      "  templates: { t: {} },",
      "});",
      "const x = ;",
      "",
    ].join("\n");
    await writeFile(join(dir, "forage.config.ts"), text);
    const result = await runCli(["validate"], { cwd: dir });
    expect(result.exitCode).toBe(6);
    expect(result.stderr).toBe(
      "forage.config.ts:4:3: (root): syntax error: ',' expected.\nforage.config.ts:6:11: (root): syntax error: Expression expected.\nforage-ctl: 2 problems in the config\n",
    );
  });

  it("reports an error the TypeScript config throws when it runs at its line, with the error's message", async () => {
    await writeFile(
      join(dir, "forage.config.ts"),
      [
        'import { defineConfig } from "forage";',
        "",
        "export default defineConfig({",
        "  user: userName,",
        "  templates: {},",
        "});",
        "",
      ].join("\n"),
    );
    const result = await runCli(["validate"], { cwd: dir });
    expect(result.exitCode).toBe(6);
    expect(result.stderr).toMatch(
      /^forage\.config\.ts:4:\d+: \(root\): running the config failed: ReferenceError: userName is not defined\n/,
    );
    expect(result.stderr).not.toMatch(stackFrame);
  });

  it("reports an unknown parent in `extends` in the same pass as the schema's errors, each positioned", async () => {
    await writeFile(
      join(dir, "forage.yaml"),
      "user: alice\ntemplates:\n  a:\n    network: sometimes\n  b:\n    extends: bse\n",
    );
    const result = await runCli(["validate"], { cwd: dir });
    expect(result.exitCode).toBe(6);
    expect(result.stderr).toBe(
      'forage.yaml:4:14: templates.a.network: must be "none", "restricted", "full" or an object\n' +
        'forage.yaml:6:14: templates.b.extends: template "bse" does not exist (known: a, b)\n' +
        "forage-ctl: 2 problems in the config\n",
    );
  });
});

describe("finding the config", () => {
  it.skipIf(existsSync("/etc/forage/forage.json"))(
    "exits 6 naming the files it looked for when the directory has no config (and nothing is installed)",
    async () => {
      const result = await runCli(["validate"], { cwd: dir });
      expect(result.exitCode).toBe(6);
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(
        /^forage-ctl: no settings: no --config or FORAGE_CONFIG, none of forage\.config\.ts, forage\.yaml, forage\.json in /,
      );
      expect(result.stderr).toContain(dir);
      expect(result.stderr).toContain("forage-ctl init");
      expect(result.stderr).not.toMatch(stackFrame);
    },
  );

  it("uses ./forage.yaml when there is no forage.config.ts", async () => {
    await copyFile(examples.yaml, join(dir, "forage.yaml"));
    const result = await runCli(["validate"], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("forage.yaml: valid (2 templates: base, trio)\n");
  });

  it("prefers ./forage.config.ts over ./forage.yaml and ./forage.json", async () => {
    await copyFile(examples.typescript, join(dir, "forage.config.ts"));
    await copyFile(examples.yaml, join(dir, "forage.yaml"));
    await copyFile(examples.json, join(dir, "forage.json"));
    const result = await runCli(["validate"], { cwd: dir });
    expect(result.stdout).toBe("forage.config.ts: valid (1 template: claude)\n");
  });

  it("reports a config path that does not exist as a config error", async () => {
    const result = await runCli(["validate", "missing.yaml"], { cwd: dir });
    expect(result.exitCode).toBe(6);
    expect(result.stderr).toBe(
      "missing.yaml: (root): cannot read config: file not found\nforage-ctl: 1 problem in the config\n",
    );
  });

  it("accepts the config through the global --config option", async () => {
    await copyFile(examples.json, join(dir, "other.json"));
    const result = await runCli(["--config", "other.json", "validate"], { cwd: dir });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("other.json: valid (1 template: fullstack)\n");
  });

  it("accepts the config through FORAGE_CONFIG", async () => {
    await copyFile(examples.json, join(dir, "other.json"));
    const result = await runCli(["validate"], { cwd: dir, env: { FORAGE_CONFIG: "other.json" } });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("other.json: valid (1 template: fullstack)\n");
  });
});

describe("a generated forage.json (what generate writes and the NixOS module installs), read as up reads it", () => {
  const generated = async (): Promise<string> => {
    const result = await runCli(["generate", examples.yaml, "-o", join(dir, "out")], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    return join("out", "forage.json");
  };

  it("validate accepts it, named or found in the directory, and names its templates", async () => {
    const file = await generated();
    expect(await runCli(["validate", file], { cwd: dir })).toEqual({
      exitCode: 0,
      stdout: "out/forage.json: valid (2 templates: base, trio)\n",
      stderr: "",
    });
    expect(await runCli(["validate", "--json"], { cwd: join(dir, "out") })).toMatchObject({
      exitCode: 0,
      stdout: `${JSON.stringify({ valid: true, config: "forage.json", templates: ["base", "trio"] }, null, 2)}\n`,
    });
  });

  it("templates lists its templates as up would offer them", async () => {
    const file = await generated();
    const result = await runCli(["--config", file, "templates", "--json"], { cwd: dir });
    expect(result.exitCode, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { name: string; network: string }[]).map((t) => [t.name, t.network])).toEqual([
      ["base", "none"],
      ["trio", "restricted"],
    ]);
  });

  it("generate refuses it as input, naming what to use instead (it holds no config to compile)", async () => {
    const file = await generated();
    const result = await runCli(["generate", file, "-o", "again"], { cwd: dir });
    expect(result.exitCode).toBe(6);
    expect(result.stderr).toBe(
      `forage-ctl: ${file} is a forage.json forage-ctl generated, not a config: use the config it was generated from (its "$comment" names it)\n`,
    );
  });
});

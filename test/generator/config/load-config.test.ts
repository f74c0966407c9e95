import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { formatDiagnostic } from "../../../generator/config/diagnostic.js";
import { loadConfig } from "../../../generator/config/load-config.js";
import { configErrorOf, repoRoot, tempConfigDir, where, type TempConfigDir } from "./temp-config.js";

let temp: TempConfigDir;
beforeEach(async () => {
  temp = await tempConfigDir();
});
afterEach(async () => {
  await temp.cleanup();
});

describe("loading the shipped examples", () => {
  it('loads the TypeScript example, whose `import from "forage"` resolves to forage itself', async () => {
    const loaded = await loadConfig("examples/restricted-claude/forage.config.ts", repoRoot);
    expect(loaded.file).toBe("examples/restricted-claude/forage.config.ts");
    expect(loaded.config.user).toBe("alice");
    expect(Object.keys(loaded.config.templates)).toEqual(["claude"]);
    expect(loaded.config.secrets).toEqual({ "anthropic-api-key": "/run/secrets/anthropic-api-key" });
  });

  it("loads the YAML example", async () => {
    const loaded = await loadConfig("examples/multi-agent/forage.yaml", repoRoot);
    expect(loaded.file).toBe("examples/multi-agent/forage.yaml");
    expect(Object.keys(loaded.config.templates).sort()).toEqual(["base", "trio"]);
    expect(loaded.config.templates.trio?.extends).toBe("base");
  });

  it("loads the JSON example", async () => {
    const loaded = await loadConfig("examples/mounts-beads/forage.json", repoRoot);
    expect(loaded.file).toBe("examples/mounts-beads/forage.json");
    expect(loaded.config.stateDir).toBe("/srv/forage");
    expect(Object.keys(loaded.config.templates)).toEqual(["fullstack"]);
  });

  it("fills schema defaults for options the file leaves out", async () => {
    const loaded = await loadConfig("examples/multi-agent/forage.yaml", repoRoot);
    expect(loaded.config.containerUsername).toBe("agent");
    expect(loaded.config.workspacePath).toBe("/workspace");
    expect(loaded.config.authorizedKeys).toEqual([]);
  });
});

/*
 * GIVEN a YAML config with eight independent mistakes, one per line noted on the right
 */
const multiErrorYaml = [
  "# Several problems at once; each must be reported with its own position.", // 1
  'user: "Bad User"', //                                                           2: bad user name
  "templats: {}", //                                                               3: typo of `templates`
  "secrets:", //                                                                   4
  "  key: /run/secrets/key", //                                                    5
  "authorizedKeys:", //                                                            6
  '  - "ssh-foo AAAAB3NzaC1yc2E user@host"', //                                    7: unknown key type
  "templates:", //                                                                 8
  "  t:", //                                                                       9
  '    extraPackages: ["ok", "bad..path"]', //                                     10: bad attribute path
  "    network:", //                                                               11
  "      mode: restricted", //                                                     12
  "      allow:", //                                                               13
  '        - "10.0.0.1"', //                                                       14: IP address
  '        - "example.com:70000"', //                                              15: port out of range
  "    agents:", //                                                                16
  "      a:", //                                                                   17
  "        package: claude-code", //                                               18: secretName without authEnvVar
  "        secretName: key", //                                                    19
  "  u:", //                                                                       20
  "    network: sometimes", //                                                     21: not a network mode
  "",
].join("\n");

describe("a YAML config with several errors", () => {
  it("reports every error at once in a single ConfigError", async () => {
    await temp.write("forage.yaml", multiErrorYaml);
    const error = await configErrorOf("forage.yaml", temp.dir);
    expect(error.diagnostics.map((d) => d.path.join("."))).toEqual([
      "user",
      "templats",
      "authorizedKeys.0",
      "templates.t.extraPackages.1",
      "templates.t.network.allow.0",
      "templates.t.network.allow.1",
      "templates.t.agents.a",
      "templates.u.network",
    ]);
  });

  it("reports each error on the line where the offending value is written", async () => {
    await temp.write("forage.yaml", multiErrorYaml);
    const error = await configErrorOf("forage.yaml", temp.dir);
    expect(error.diagnostics.map((d) => d.line)).toEqual([2, 3, 7, 10, 14, 15, 18, 21]);
  });

  it("points the column at the offending value", async () => {
    await temp.write("forage.yaml", multiErrorYaml);
    const error = await configErrorOf("forage.yaml", temp.dir);
    const positions = Object.fromEntries(error.diagnostics.map((d) => [d.path.join("."), where(d)]));
    expect(positions).toMatchObject({
      user: "forage.yaml:2:7",
      "authorizedKeys.0": "forage.yaml:7:5",
      "templates.t.extraPackages.1": "forage.yaml:10:27",
      "templates.t.network.allow.0": "forage.yaml:14:11",
      "templates.t.network.allow.1": "forage.yaml:15:11",
      "templates.t.agents.a": "forage.yaml:18:9",
      "templates.u.network": "forage.yaml:21:14",
    });
  });

  it("says what is wrong with each value", async () => {
    await temp.write("forage.yaml", multiErrorYaml);
    const messages = (await configErrorOf("forage.yaml", temp.dir)).diagnostics.map((d) => d.message);
    expect(messages[0]).toMatch(/Unix user name/);
    expect(messages[1]).toMatch(/unknown option "templats"/);
    expect(messages[2]).toMatch(/OpenSSH public key/);
    expect(messages[3]).toMatch(/nixpkgs attribute path/);
    expect(messages[4]).toMatch(/not an IP address/);
    expect(messages[5]).toMatch(/port must be between 1 and 65535/);
    expect(messages[6]).toMatch(/secretName and authEnvVar go together/);
    expect(messages[7]).toMatch(/"none", "restricted", "full"/);
  });

  it("formats the error message as one `file:line:col: path: message` line per problem, sorted by position", async () => {
    await temp.write("forage.yaml", multiErrorYaml);
    const error = await configErrorOf("forage.yaml", temp.dir);
    const lines = error.message.split("\n");
    expect(lines).toHaveLength(8);
    expect(lines).toEqual(error.diagnostics.map(formatDiagnostic));
    expect(lines[0]).toBe(
      "forage.yaml:2:7: user: must be a Unix user name: 1-32 characters of a-z, 0-9, '_' and '-', starting with a letter or '_'",
    );
    expect(lines[4]).toBe(
      "forage.yaml:14:11: templates.t.network.allow[0]: must be a host name, not an IP address (allowlists follow DNS; hard-coded addresses are refused)",
    );
    const byPosition = [...error.diagnostics].sort(
      (a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0),
    );
    expect(error.diagnostics).toEqual(byPosition);
  });

  it("reports an unknown key at the key itself, where the typo is", async () => {
    // GIVEN a misspelt key whose value starts on a later line
    await temp.write(
      "forage.yaml",
      ["user: alice", "templates:", "  t:", "    netwrk:", "      mode: none", "    descripton: hi", ""].join("\n"),
    );
    const error = await configErrorOf("forage.yaml", temp.dir);
    // THEN the position is the key (line 4, col 5; line 6, col 5), not the value after it
    expect(error.diagnostics.map((d) => `${where(d)}: ${d.path.join(".")}`)).toEqual([
      "forage.yaml:4:5: templates.t.netwrk",
      "forage.yaml:6:5: templates.t.descripton",
    ]);
  });

  it("rejects duplicate keys instead of letting the last one win", async () => {
    await temp.write("forage.yaml", ["user: alice", "templates:", "  t: {}", "user: bob", ""].join("\n"));
    const error = await configErrorOf("forage.yaml", temp.dir);
    expect(error.diagnostics).toHaveLength(1);
    expect(error.diagnostics[0]?.line).toBe(4);
    expect(error.diagnostics[0]?.message).toMatch(/unique/i);
  });

  it("reports a YAML syntax error with its line and column", async () => {
    await temp.write(
      "forage.yaml",
      ["user: alice", "templates:", "  t:", "    description: x", "   extraPackages: []", ""].join("\n"),
    );
    const error = await configErrorOf("forage.yaml", temp.dir);
    expect(error.diagnostics).toHaveLength(1);
    expect(where(error.diagnostics[0]!)).toBe("forage.yaml:5:1");
    expect(error.message).toMatch(/^forage\.yaml:5:1: \(root\): \S/);
  });
});

/*
 * GIVEN a JSON config with several mistakes, one per line noted on the right
 */
const multiErrorJson = [
  "{", //                                                                     1
  '  "user": "Bad User",', //                                                 2: bad user name
  '  "templates": {', //                                                      3
  '    "t": {', //                                                            4
  '      "network": { "mode": "sometimes" },', //                             5: not a network mode
  '      "extraPackages": ["bad..path"],', //                                 6: bad attribute path
  '      "agents": {', //                                                     7
  '        "a": { "package": "claude-code", "hostConfigDir": "~/.claude",', // 8
  '               "secretName": "key" }', //                                  9: secretName without authEnvVar
  "      }", //                                                               10
  "    }", //                                                                 11
  "  },", //                                                                  12
  '  "secrets": { "key": "relative/path" }', //                               13: not an absolute path
  "}", //                                                                     14
  "",
].join("\n");

describe("a JSON config with several errors", () => {
  it("reports every error at once, each with its line and column, sorted by position", async () => {
    await temp.write("forage.json", multiErrorJson);
    const error = await configErrorOf("forage.json", temp.dir);
    expect(error.diagnostics.map((d) => `${where(d)}: ${d.path.join(".")}`)).toEqual([
      "forage.json:2:11: user",
      "forage.json:5:28: templates.t.network.mode",
      "forage.json:6:25: templates.t.extraPackages.0",
      "forage.json:8:14: templates.t.agents.a",
      "forage.json:13:23: secrets.key",
    ]);
  });

  it("formats each JSON problem as `file:line:col: path: message`", async () => {
    await temp.write("forage.json", multiErrorJson);
    const error = await configErrorOf("forage.json", temp.dir);
    expect(error.message.split("\n")).toContain(
      'forage.json:5:28: templates.t.network.mode: must be one of "none", "restricted", "full"',
    );
  });

  it("reports a JSON syntax error with its line and column", async () => {
    await temp.write("forage.json", ["{", '  "user": "alice",', '  "templates": {,}', "}", ""].join("\n"));
    const error = await configErrorOf("forage.json", temp.dir);
    expect(error.diagnostics).toHaveLength(1);
    expect(where(error.diagnostics[0]!)).toBe("forage.json:3:17");
    expect(error.diagnostics[0]?.message).toMatch(/^invalid JSON: /);
  });

  it("rejects YAML-only syntax in a .json file", async () => {
    await temp.write("forage.json", ["user: alice", "templates:", "  t: {}", ""].join("\n"));
    const error = await configErrorOf("forage.json", temp.dir);
    expect(error.diagnostics[0]?.message).toMatch(/^invalid JSON/);
  });
});

describe("a missing or unsupported config file", () => {
  it("reports a missing file as a ConfigError naming it", async () => {
    const error = await configErrorOf("nope.yaml", temp.dir);
    expect(error.message).toBe("nope.yaml: (root): cannot read config: file not found");
  });

  it("refuses an unknown extension", async () => {
    await temp.write("forage.toml", "user = 'alice'\n");
    const error = await configErrorOf("forage.toml", temp.dir);
    expect(error.message).toMatch(/^forage\.toml: \(root\): unknown config type/);
  });
});

describe("a TypeScript config", () => {
  it("that has no default export asks for `export default defineConfig(...)`", async () => {
    await temp.write(
      "forage.config.ts",
      [
        'import { defineConfig } from "forage";',
        "",
        'export const config = defineConfig({ user: "alice", templates: { t: {} } });',
        "",
      ].join("\n"),
    );
    const error = await configErrorOf("forage.config.ts", temp.dir);
    expect(error.diagnostics.map((d) => [d.file, d.message])).toEqual([
      ["forage.config.ts", expect.stringMatching(/export default defineConfig\(/)],
    ]);
  });

  it("that exports nothing at all asks for `export default defineConfig(...)`", async () => {
    await temp.write("forage.config.ts", "const unused = 1;\n");
    const error = await configErrorOf("forage.config.ts", temp.dir);
    expect(error.diagnostics.map((d) => d.message)).toEqual([expect.stringMatching(/export default defineConfig\(/)]);
  });

  it("with a syntax error is a ConfigError at the error's line and column, saying what is wrong", async () => {
    await temp.write(
      "forage.config.ts",
      [
        'import { defineConfig } from "forage";',
        'export default defineConfig({ user: "alice", templates: { t: {} } ;',
        "",
      ].join("\n"),
    );
    const error = await configErrorOf("forage.config.ts", temp.dir);
    expect(error.diagnostics).toEqual([
      { file: "forage.config.ts", line: 2, column: 67, path: [], message: "syntax error: ',' expected." },
      { file: "forage.config.ts", line: 3, column: 1, path: [], message: "syntax error: '}' expected." },
    ]);
  });

  it("with schema errors lists each with file, line:col of the literal and path", async () => {
    await temp.write(
      "forage.config.ts",
      [
        'import { defineConfig } from "forage";',
        "export default defineConfig({",
        '  user: "Bad User",',
        '  templates: { t: { network: "sometimes" as never } },',
        "});",
        "",
      ].join("\n"),
    );
    const error = await configErrorOf("forage.config.ts", temp.dir);
    expect(error.diagnostics.map((d) => [d.file, d.path.join("."), d.line, d.column])).toEqual([
      ["forage.config.ts", "user", 3, 9],
      ["forage.config.ts", "templates.t.network", 4, 30],
    ]);
    expect(error.message.split("\n")).toContain(
      'forage.config.ts:4:30: templates.t.network: must be "none", "restricted", "full" or an object',
    );
  });

  it('refuses the reference\'s multiplexer "wezterm" with the reason, where it stands (no option is accepted and ignored)', async () => {
    await temp.write("forage.yaml", ["user: alice", "templates:", "  t:", "    multiplexer: wezterm", ""].join("\n"));
    const error = await configErrorOf("forage.yaml", temp.dir);
    expect(error.diagnostics.map((d) => `${where(d)} ${d.path.join(".")}`)).toEqual([
      "forage.yaml:4:18 templates.t.multiplexer",
    ]);
    expect(error.message).toContain(
      'templates.t.multiplexer: must be "tmux" (or left out): every sandbox\'s agent session is a tmux session. "wezterm"',
    );
    await temp.write("forage.yaml", ["user: alice", "templates:", "  t:", "    multiplexer: tmux", ""].join("\n"));
    expect((await loadConfig("forage.yaml", temp.dir)).config.templates.t?.multiplexer).toBe("tmux");
  });

  it.each([
    [
      "sni beside a mode that checks no names",
      ["    network: { mode: full, sni: true }"],
      "templates.t.network",
      'sni only applies to mode "restricted"',
    ],
    [
      "ask beside a mode that has no allowlist",
      ["    network: { mode: none, ask: true }"],
      "templates.t.network",
      'ask only applies to mode "restricted" (it asks about names not in allow)',
    ],
    [
      "a branch on a mount bound as it is",
      ["    workspace:", "      mounts:", "        docs: { containerPath: /docs, hostPath: /srv/docs, branch: main }"],
      "templates.t.workspace.mounts.docs",
      "branch applies to a jj or git-worktree checkout",
    ],
    [
      "a branch on a direct mount",
      ["    workspace:", "      mounts:", "        src: { containerPath: /src, mode: direct, branch: main }"],
      "templates.t.workspace.mounts.src",
      "branch applies to a jj or git-worktree checkout",
    ],
    [
      "a container path for a config directory never mounted",
      ["    agents:", "      a: { package: hello, containerConfigDir: /home/agent/.a }"],
      "templates.t.agents.a",
      "containerConfigDir and hostConfigDirReadOnly say how hostConfigDir is mounted",
    ],
    [
      "read-only for a config directory never mounted",
      ["    agents:", "      a: { package: hello, hostConfigDirReadOnly: true }"],
      "templates.t.agents.a",
      "set hostConfigDir, or remove them",
    ],
  ])("refuses %s rather than ignore it", async (_case, lines, path, message) => {
    await temp.write("forage.yaml", ["user: alice", "templates:", "  t:", ...lines, ""].join("\n"));
    const error = await configErrorOf("forage.yaml", temp.dir);
    expect(error.diagnostics.map((d) => [d.path.join("."), d.message])).toEqual([
      [path, expect.stringContaining(message)],
    ]);
  });

  it("without an import from forage still loads a plain default-exported object", async () => {
    await temp.write("forage.config.ts", 'export default { user: "alice", templates: { t: { network: "full" } } };\n');
    const loaded = await loadConfig("forage.config.ts", temp.dir);
    expect(loaded.config.templates.t?.network).toBe("full");
  });
});

describe("`extends` problems in a config the schema refuses", () => {
  it("are reported in the same pass as the schema's: an unknown parent and a cycle, each positioned", async () => {
    await temp.write(
      "forage.yaml",
      [
        "user: Bad User",
        "templates:",
        "  a: { extends: b }",
        "  b: { extends: a }",
        "  c: { extends: [a, missing] }",
        "  d: { extends: 7 }",
        "",
      ].join("\n"),
    );
    const error = await configErrorOf("forage.yaml", temp.dir);
    expect(error.diagnostics.map((d) => [d.line, d.path.join("."), d.message])).toEqual([
      [1, "user", expect.stringMatching(/^must be a Unix user name/)],
      [3, "templates.a.extends", "inheritance cycle: a → b → a"],
      [4, "templates.b.extends", "inheritance cycle: b → a → b"],
      [5, "templates.c.extends.1", 'template "missing" does not exist (known: a, b, c, d)'],
      // Not a name: the schema's to say, once.
      [6, "templates.d.extends", expect.not.stringMatching(/does not exist/)],
    ]);
  });
});

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../generator/config/load-config.js";
import { resolveModel } from "../../../generator/model/resolve.js";
import { configErrorOf, tempConfigDir, type TempConfigDir } from "./temp-config.js";

/*
 * The config's `login` of an agent and `context` of a template: what each resolves to, and what
 * is refused (with the field and the fix) rather than accepted and ignored.
 */
let temp: TempConfigDir;
beforeEach(async () => {
  temp = await tempConfigDir();
});
afterEach(() => temp.cleanup());

const write = (lines: string[]): Promise<string> =>
  temp.write("forage.yaml", ["user: alice", "templates:", "  t:", ...lines, ""].join("\n"));

describe("an agent's login", () => {
  it.each([
    [
      "a login of a program Forage does not know",
      "{ package: aider-chat, login: oauth }",
      "Forage knows the logins of claude-code, codex and gemini-cli",
    ],
    ["a kind the program does not have", "{ package: codex, login: token }", `codex's login is "oauth", not "token"`],
    [
      "a login beside an API key",
      "{ package: claude-code, login: token, secretName: k, authEnvVar: ANTHROPIC_API_KEY }",
      "a login or an API key, not both",
    ],
    [
      "a login beside the host's login directory",
      "{ package: claude-code, login: oauth, hostConfigDir: ~/.claude }",
      "would mount the host's own login",
    ],
    [
      "an oauth login by wrapper",
      "{ package: gemini-cli, login: oauth, auth: wrapper }",
      "refresh token never enters the sandbox",
    ],
    [
      "a login by placeholder",
      "{ package: claude-code, login: token, auth: placeholder }",
      'auth "placeholder" is for API keys',
    ],
    [
      "a token endpoint without an oauth login",
      '{ package: claude-code, api: { tokenUrl: "https://auth.example.org/token" } }',
      "api.tokenUrl is where an oauth login is refreshed",
    ],
  ])("refuses %s", async (_case, agent, message) => {
    await write(["    agents:", `      a: ${agent}`]);
    const error = await configErrorOf("forage.yaml", temp.dir);
    expect(error.diagnostics.map((d) => d.message)).toContainEqual(expect.stringContaining(message));
  });

  it("resolves an oauth login to the proxy, its program's API and token endpoint, and a token login to the wrapper by default", async () => {
    await write([
      "    agents:",
      "      codex: { package: codex, login: oauth }",
      "      claude: { package: claude-code, login: token }",
    ]);
    const model = resolveModel((await loadConfig("forage.yaml", temp.dir)).config, "forage.yaml");
    const [claude, codex] = model.templates[0]?.agents ?? [];
    expect(claude).toMatchObject({
      auth: "wrapper",
      api: null,
      secret: null,
      login: { flavor: "claude", kind: "token", tokenUrl: "https://platform.claude.com/v1/oauth/token" },
    });
    expect(codex).toMatchObject({
      auth: "proxy",
      login: { flavor: "codex", kind: "oauth", tokenUrl: "https://auth.openai.com/oauth/token" },
      api: {
        provider: "openai",
        upstream: "https://chatgpt.com/backend-api/codex",
        header: "authorization",
        value: "Bearer {key}",
        baseUrlEnv: { OPENAI_BASE_URL: "" },
      },
    });
  });
});

describe("a template's context", () => {
  it("refuses fragments or skills beside enable: false, which would drop them", async () => {
    await write(["    context: { enable: false, fragments: [hello] }"]);
    const error = await configErrorOf("forage.yaml", temp.dir);
    expect(error.diagnostics.map((d) => [d.path.join("."), d.message])).toEqual([
      ["templates.t.context", expect.stringContaining("remove them, or remove enable: false")],
    ]);
  });

  it("refuses a skill named like Forage's own", async () => {
    await write(["    context:", "      skills:", "        forage-jj: { description: mine, body: text }"]);
    const error = await configErrorOf("forage.yaml", temp.dir);
    expect(error.diagnostics.map((d) => d.message)).toContainEqual(expect.stringContaining("Forage's own skills"));
  });

  it("merges a child's context with its parent's, skills by name", async () => {
    await temp.write(
      "forage.yaml",
      [
        "user: alice",
        "templates:",
        "  base:",
        "    context: { fragments: [parent], skills: { a: { description: A, body: a } } }",
        "  child:",
        "    extends: base",
        "    context: { skills: { b: { description: B, body: b } } }",
        "",
      ].join("\n"),
    );
    const model = resolveModel((await loadConfig("forage.yaml", temp.dir)).config, "forage.yaml");
    const child = model.templates.find((template) => template.name === "child");
    expect(child?.context).toEqual({
      enable: true,
      fragments: ["parent"],
      skills: [expect.objectContaining({ name: "a" }), expect.objectContaining({ name: "b" })],
    });
  });
});

describe("agents' permissions", () => {
  it("refuses two agents of one template with different permissions: a sandbox has one managed settings file", async () => {
    await write([
      "    agents:",
      '      a: { package: claude-code, permissions: { allow: ["Bash(npm test:*)"] } }',
      '      b: { package: claude-code, permissions: { deny: ["Bash(curl:*)"] } }',
    ]);
    const error = await configErrorOf("forage.yaml", temp.dir);
    expect(error.diagnostics.map((d) => [d.path.join("."), d.message])).toEqual([
      ["templates.t.agents.b.permissions", expect.stringContaining("one set of Claude Code managed settings")],
    ]);
  });

  it("takes the same permissions on several agents", async () => {
    await write([
      "    agents:",
      "      a: { package: claude-code, permissions: { skipAll: true } }",
      "      b: { package: claude-code, permissions: { skipAll: true } }",
      "      c: { package: codex }",
    ]);
    await expect(loadConfig("forage.yaml", temp.dir)).resolves.toBeDefined();
  });
});

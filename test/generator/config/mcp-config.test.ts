import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../generator/config/load-config.js";
import { resolveModel } from "../../../generator/model/resolve.js";
import { configErrorOf, tempConfigDir, type TempConfigDir } from "./temp-config.js";

/* A template's `mcp.servers`: what the MCP gate reads, resolved with its defaults; what it could not honour, refused with why. */
let temp: TempConfigDir;
beforeEach(async () => {
  temp = await tempConfigDir();
});
afterEach(() => temp.cleanup());

const write = (lines: string[], top: string[] = []): Promise<string> =>
  temp.write(
    "forage.yaml",
    ["user: alice", "secrets: { tracker-token: /run/keys/tracker }", ...top, "templates:", ...lines, ""].join("\n"),
  );

const problems = async (): Promise<string[][]> =>
  (await configErrorOf("forage.yaml", temp.dir)).diagnostics.map((d) => [d.path.join("."), d.message]);

describe("a template's MCP servers", () => {
  it("resolves a server with its defaults (token in Authorization as Bearer, every tool asked about), merged by name with a parent's", async () => {
    await write([
      "  base:",
      "    mcp: { servers: { tracker: { url: https://mcp.tracker.example/mcp, secret: tracker-token } } }",
      "  child:",
      "    extends: base",
      "    mcp:",
      "      servers:",
      "        local: { url: http://127.0.0.1:3000/mcp, tools: { allow: [get_*], deny: [delete_*] } }",
    ]);
    const model = resolveModel((await loadConfig("forage.yaml", temp.dir)).config, "forage.yaml");
    expect(model.templates.find((t) => t.name === "child")?.mcp.servers).toEqual([
      {
        name: "local",
        url: "http://127.0.0.1:3000/mcp",
        command: null,
        template: null,
        env: {},
        workspace: null,
        secret: null,
        header: "authorization",
        value: "Bearer {key}",
        tools: { allow: ["get_*"], ask: [], deny: ["delete_*"] },
      },
      {
        name: "tracker",
        url: "https://mcp.tracker.example/mcp",
        command: null,
        template: null,
        env: {},
        workspace: null,
        secret: "tracker-token",
        header: "authorization",
        value: "Bearer {key}",
        tools: { allow: [], ask: [], deny: [] },
      },
    ]);
  });

  it.each([
    [
      "plain http to another machine (the token would cross the network in clear)",
      "url: http://mcp.example/mcp",
      "url",
      "must be https",
    ],
    [
      "a user and password in the URL",
      "url: https://me:pw@mcp.example/mcp",
      "url",
      "must not carry a user or password",
    ],
    ["a URL of another scheme", "url: ftp://mcp.example/mcp", "url", "http(s) URL"],
    ["a header without a token to put in it", "url: https://mcp.example/mcp, header: x-key", "header", "has none"],
    ["a value without {key}", "url: https://mcp.example/mcp, secret: tracker-token, value: Bearer", "value", '"{key}"'],
    [
      "a token in one of the transport's own headers",
      "url: https://mcp.example/mcp, secret: tracker-token, header: mcp-session-id",
      "header",
      "transport",
    ],
    ["a secret not defined", "url: https://mcp.example/mcp, secret: nope", "secret", 'secret "nope" is not defined'],
    [
      "a tool pattern with a space",
      "url: https://mcp.example/mcp, tools: { allow: [get issue] }",
      "tools.allow.0",
      "tool name",
    ],
  ])("refuses %s", async (_what, server, at, said) => {
    await write(["  t:", `    mcp: { servers: { tracker: { ${server} } } }`]);
    expect(await problems()).toEqual([[`templates.t.mcp.servers.tracker.${at}`, expect.stringContaining(said)]]);
  });

  it("resolves a stdio server: its command, the template of its own sandbox, its secrets as environment variables", async () => {
    await write([
      "  github-mcp: { network: { mode: restricted, allow: [api.github.com] } }",
      "  dev:",
      "    mcp:",
      "      servers:",
      "        github:",
      "          command: [github-mcp-server, stdio]",
      "          template: github-mcp",
      "          env: { GITHUB_PERSONAL_ACCESS_TOKEN: tracker-token }",
      "          workspace: ~/mcp/github",
      "          tools: { allow: [get_*] }",
    ]);
    const model = resolveModel((await loadConfig("forage.yaml", temp.dir)).config, "forage.yaml");
    expect(model.templates.find((t) => t.name === "dev")?.mcp.servers).toEqual([
      {
        name: "github",
        url: null,
        command: ["github-mcp-server", "stdio"],
        template: "github-mcp",
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: "tracker-token" },
        workspace: "~/mcp/github",
        secret: null,
        header: "authorization",
        value: "Bearer {key}",
        tools: { allow: ["get_*"], ask: [], deny: [] },
      },
    ]);
  });

  it.each([
    [
      "a server with neither url nor command",
      "tools: { allow: [x] }",
      "",
      "needs url (a server reached over HTTP) or command",
    ],
    ["a server with both", "url: https://mcp.example/mcp, command: [x], template: srv", "", "not both"],
    ["a stdio server without a template for its sandbox", "command: [x]", "command", "name its template"],
    [
      "a token header on a stdio server",
      "command: [x], template: srv, secret: tracker-token",
      "secret",
      "reached by url",
    ],
    [
      "env on a server reached by url",
      "url: https://mcp.example/mcp, env: { A: tracker-token }",
      "env",
      "run by command",
    ],
    ["a template that does not exist", "command: [x], template: nope", "template", 'template "nope" does not exist'],
    ["the agent's own template", "command: [x], template: t", "template", "another template"],
    ["a template with agents", "command: [x], template: with-agent", "template", "has agents"],
    ["a template with MCP servers", "command: [x], template: with-mcp", "template", "MCP servers of its own"],
    [
      "an env secret not defined",
      "command: [x], template: srv, env: { TOKEN: nope }",
      "env.TOKEN",
      'secret "nope" is not defined',
    ],
    [
      "an env name that is no variable",
      "command: [x], template: srv, env: { 1TOKEN: tracker-token }",
      "env.1TOKEN",
      "must be a shell variable name",
    ],
    ["an argument with a line break", 'command: ["a\\nb"], template: srv', "command.0", "line breaks"],
    ["a relative workspace", "command: [x], template: srv, workspace: mcp", "workspace", "absolute path"],
  ])("refuses %s", async (_what, server, at, said) => {
    await write([
      "  srv: {}",
      "  with-agent: { agents: { claude: { package: claude-code } } }",
      "  with-mcp: { mcp: { servers: { up: { url: https://mcp.example/mcp } } } }",
      "  t:",
      `    mcp: { servers: { tracker: { ${server} } } }`,
    ]);
    const path = at === "" ? "templates.t.mcp.servers.tracker" : `templates.t.mcp.servers.tracker.${at}`;
    expect(await problems()).toEqual([[path, expect.stringContaining(said)]]);
  });

  it("refuses a server name the gate's path could not carry", async () => {
    await write(["  t:", "    mcp: { servers: { Tracker_1: { url: https://mcp.example/mcp } } }"]);
    expect((await problems())[0]?.[1]).toContain("MCP server names must be");
  });
});

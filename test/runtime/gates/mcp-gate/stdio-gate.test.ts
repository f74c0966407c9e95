import { mkdtempSync, rmSync, writeFileSync, mkdirSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { StandingToolApprovals } from "../../../../runtime/gates/mcp-gate/call-judge.js";
import { handleMcpRequest, type McpGateServices } from "../../../../runtime/gates/mcp-gate/mcp-gate-handler.js";
import { StdioServerLink } from "../../../../runtime/gates/mcp-gate/stdio-link.js";
import type { ToolPolicy } from "../../../../runtime/gates/mcp-gate/tool-policy.js";
import { TestApprovalQueue } from "../../../support/test-approval-queue.js";

/*
 * The MCP gate in front of a stdio server: the published @modelcontextprotocol/server-everything,
 * started on this host through the real launcher (runtime/assets/forage-mcp-server), which gives
 * it its secret from a file as an environment variable; the agent the MCP SDK's client over
 * Streamable HTTP. (In a sandbox of its own: test/integration/mcp-stdio-server.test.ts.)
 */

const token = "tok-stdio-8d41c07ae29b5f36";
const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");
const launcher = readFileSync(join(import.meta.dirname, "../../../../runtime/assets/forage-mcp-server"), "utf8");
const dir = mkdtempSync(join(tmpdir(), "forage-mcp-stdio-"));
const envDir = join(dir, "env");
const logFile = join(dir, "server.log");
mkdirSync(envDir);
writeFileSync(join(envDir, "API_TOKEN"), `${token}\n`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const policy: ToolPolicy = { allow: ["echo", "get-sum", "get-env"], ask: ["get-tiny-image"], deny: ["toggle-*"] };

let gate: Server;
let link: StdioServerLink;
let queue: TestApprovalQueue;
let audit: string[];
let ended: string[];
let services: McpGateServices;
const clients: Client[] = [];

/** The gate's route to a stdio server started by `argv` (through the launcher, by default server-everything). */
async function startGate(argv: string[] = [process.execPath, everything, "stdio"], tools = policy): Promise<number> {
  link = new StdioServerLink(
    "everything",
    async () => ["bash", "-c", launcher, "forage-mcp-server", envDir, logFile, ...argv],
    (why) => ended.push(why),
  );
  const route = {
    sandbox: "fix-42",
    servers: new Map([["everything", { name: "everything", secrets: [token], policy: tools, link }]]),
  };
  gate = createServer((req, res) => handleMcpRequest(route, req, res, services));
  await new Promise<void>((resolve) => gate.listen(0, "127.0.0.1", resolve));
  return (gate.address() as AddressInfo).port;
}

async function connect(port: number, capabilities: Record<string, object> = {}): Promise<Client> {
  const client = new Client({ name: "agent", version: "1.0.0" }, { capabilities });
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/_mcp/everything`)));
  return client;
}

const text = (result: Awaited<ReturnType<Client["callTool"]>>): string =>
  (result.content as { type: string; text: string }[]).map((block) => block.text).join("");

beforeEach(() => {
  queue = new TestApprovalQueue();
  audit = [];
  ended = [];
  services = {
    ask: queue.ask,
    standing: new StandingToolApprovals(),
    audit: (sandbox, detail) => void audit.push(`${sandbox} ${detail}`),
    keepAlways: async () => undefined,
  };
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  await link?.close();
  await new Promise<void>((resolve) => {
    gate?.closeAllConnections();
    gate?.close(() => resolve());
  });
});

describe("the MCP gate, in front of a published stdio server", () => {
  it("lists the server's tools without the denied ones, and relays allowed calls", async () => {
    const agent = await connect(await startGate());
    const names = (await agent.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain("echo");
    expect(names).toContain("get-sum");
    expect(names.filter((name) => name.startsWith("toggle-"))).toEqual([]);
    expect(text(await agent.callTool({ name: "echo", arguments: { message: "hi ✓" } }))).toBe("Echo: hi ✓");
    expect(text(await agent.callTool({ name: "get-sum", arguments: { a: 2, b: 40 } }))).toContain("42");
    expect(audit).toEqual([
      'fix-42 everything: tool "echo": allowed by the template\'s policy',
      'fix-42 everything: tool "get-sum": allowed by the template\'s policy',
    ]);
  });

  it("gives the server its secret as an environment variable, and masks it in what the agent gets back", async () => {
    const agent = await connect(await startGate());
    const shown = text(await agent.callTool({ name: "get-env", arguments: {} }));
    // The server read it (the variable is there), and the agent never sees its value.
    expect(shown).toContain('"API_TOKEN"');
    expect(shown).not.toContain(token);
    expect(shown).toMatch(/"API_TOKEN": "\[forage-redacted/);
  });

  it("refuses a denied tool before the server sees it, and holds an asked one for a human", async () => {
    const agent = await connect(await startGate());
    const refused = await agent.callTool({ name: "toggle-simulated-logging", arguments: {} });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain("was not made");
    const asked = agent.callTool({ name: "get-tiny-image", arguments: {} });
    const pending = await queue.next();
    expect(pending.ask.subject).toEqual({ server: "everything", tool: "get-tiny-image", arguments: "{}" });
    pending.answer({ decision: "once" });
    expect((await asked).isError).not.toBe(true);
  });

  it("tells the server the agent has no sampling, roots or elicitation (the gate could not carry them), so it offers no tool that needs them", async () => {
    const agent = await connect(await startGate(), { sampling: {}, roots: { listChanged: true }, elicitation: {} });
    const names = (await agent.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain("echo");
    expect(
      names.filter((name) => name.startsWith("trigger-sampling") || name.startsWith("trigger-elicitation")),
    ).toEqual([]);
  });

  it("keeps two agents' calls apart when they use the same ids (the server sees the gate's ids only)", async () => {
    const port = await startGate();
    const [first, second] = [await connect(port), await connect(port)];
    const answers = await Promise.all([
      first.callTool({ name: "echo", arguments: { message: "one" } }),
      second.callTool({ name: "echo", arguments: { message: "two" } }),
      first.callTool({ name: "get-sum", arguments: { a: 1, b: 1 } }),
    ]);
    expect(answers.map(text)).toEqual(["Echo: one", "Echo: two", expect.stringContaining("2")]);
  });

  it("says why a server that ended could not answer, its stderr kept where it ran (never relayed), and starts it again for the next call", async () => {
    // A server that dies at once, saying its secret on stderr as a broken server might.
    const port = await startGate([
      process.execPath,
      "-e",
      "process.stderr.write('bad token ' + process.env.API_TOKEN); process.exit(3)",
    ]);
    const answer = await fetch(`http://127.0.0.1:${port}/_mcp/everything`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" }),
    });
    const body = (await answer.json()) as { id: number; error: { message: string } };
    expect(body.id).toBe(7);
    expect(body.error.message).toBe("forage: the MCP server everything exited with code 3");
    // What it said is in its log, where it ran (in production its own sandbox), not in the answer.
    expect(readFileSync(logFile, "utf8")).toContain(`bad token ${token}`);
    expect(ended).toEqual([expect.stringContaining("exited with code 3")]);
    // The next message starts it again (and it dies again, saying so).
    const again = await fetch(`http://127.0.0.1:${port}/_mcp/everything`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 8, method: "ping" }),
    });
    expect(((await again.json()) as { error: { message: string } }).error.message).toContain("exited with code 3");
    expect(ended).toHaveLength(2);
  });

  it("answers GET and DELETE with 405: a stdio server has no stream or session of its own to reach", async () => {
    const port = await startGate();
    for (const method of ["GET", "DELETE"]) {
      const answer = await fetch(`http://127.0.0.1:${port}/_mcp/everything`, { method });
      expect(answer.status).toBe(405);
      expect(answer.headers.get("allow")).toBe("POST");
    }
  });
});

describe("the gate's link to a stdio server", () => {
  it("refuses messages once 8 MiB wait unread by a server that does not read, rather than holding more", async () => {
    link = new StdioServerLink("deaf", async () => [process.execPath, "-e", "setInterval(() => undefined, 1000)"]);
    const big = { jsonrpc: "2.0", method: "notifications/message", params: { data: "x".repeat(1024 * 1024) } };
    let sent = 0;
    const refused = await (async () => {
      for (; sent < 20; sent++) await link.notify(big);
    })().catch((error: unknown) => error);
    expect(String(refused)).toContain("the MCP server deaf is not reading its input");
    expect(sent).toBeGreaterThanOrEqual(8);
    expect(sent).toBeLessThan(12);
  });

  it("starts no server whose secrets are gone (after a host restart), its log saying what to do", async () => {
    const log = join(dir, "no-secrets.log");
    const missing = ["bash", "-c", launcher, "forage-mcp-server", join(dir, "gone"), log, process.execPath, everything];
    link = new StdioServerLink("everything", async () => missing);
    await expect(link.request({ jsonrpc: "2.0", method: "ping" })).rejects.toThrow("exited with code 2");
    expect(readFileSync(log, "utf8")).toContain("no secrets at");
  });

  it("ends a server that sends a message over 4 MiB, and says so to what waited", async () => {
    const flood = "process.stdin.once('data', () => process.stdout.write('x'.repeat(5 * 1024 * 1024)))";
    const ends: string[] = [];
    link = new StdioServerLink(
      "flood",
      async () => [process.execPath, "-e", flood],
      (why) => ends.push(why),
    );
    await expect(link.request({ jsonrpc: "2.0", method: "ping" })).rejects.toThrow(
      "the MCP server flood sent a message over 4194304 bytes",
    );
    expect(ends).toEqual(["the MCP server flood sent a message over 4194304 bytes"]);
  });

  it("answers a server's own requests 'not found', so a server that asks the client something does not hang", async () => {
    // A small server of the test's own: it asks the client for roots, and answers a ping with what it was told.
    const server = [
      "const rl = require('readline').createInterface({ input: process.stdin });",
      "let told = 'nothing';",
      "process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: 'r1', method: 'roots/list' }) + '\\n');",
      "rl.on('line', (line) => { const m = JSON.parse(line);",
      "  if (m.id === 'r1') told = JSON.stringify(m.error);",
      "  else if (m.method === 'ping') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { told } }) + '\\n'); });",
    ].join("\n");
    link = new StdioServerLink("small", async () => [process.execPath, "-e", server]);
    await link.notify({ jsonrpc: "2.0", method: "notifications/initialized" });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const answer = await link.request({ jsonrpc: "2.0", method: "ping" });
    expect(JSON.parse((answer.result as { told: string }).told)).toEqual({
      code: -32601,
      message: "forage's MCP gate does not pass a server's requests (sampling, roots, elicitation) to the agent",
    });
  });
});

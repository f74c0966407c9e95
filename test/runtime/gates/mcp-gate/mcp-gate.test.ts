import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StandingToolApprovals } from "../../../../runtime/gates/mcp-gate/call-judge.js";
import { passServerMessage } from "../../../../runtime/gates/mcp-gate/server-messages.js";
import { KeyRedactor } from "../../../../runtime/gates/shared/key-redactor.js";
import { handleMcpRequest, type McpGateServices } from "../../../../runtime/gates/mcp-gate/mcp-gate-handler.js";
import type { ToolPolicy } from "../../../../runtime/gates/mcp-gate/tool-policy.js";
import { TestApprovalQueue } from "../../../support/test-approval-queue.js";
import { TestMcpServer } from "../../../support/test-mcp-server.js";

/*
 * The MCP gate between a real MCP client and a real MCP server, both the MCP TypeScript SDK's
 * (Streamable HTTP, sessions, answers as event streams), the gate on a loopback listener of its
 * own as the daemon will serve it, the human a test approvals queue.
 */

const token = "tok-tracker-5f2c9a71d3e8b6a4";
const policy: ToolPolicy = { allow: ["get_*", "list_*", "echo_*"], ask: [], deny: ["delete_*"] };

let upstream: TestMcpServer;
let gate: Server;
let queue: TestApprovalQueue;
let audit: string[];
let kept: string[];
let services: McpGateServices;
let client: Client;

async function startGate(servicesPolicy: ToolPolicy): Promise<number> {
  const route = upstream.gateRoute("fix-42", token, servicesPolicy);
  gate = createServer((req, res) => handleMcpRequest(route, req, res, services));
  await new Promise<void>((resolve) => gate.listen(0, "127.0.0.1", resolve));
  return (gate.address() as AddressInfo).port;
}

async function connect(port: number, headers: Record<string, string> = {}): Promise<Client> {
  client = new Client({ name: "agent", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/_mcp/tracker`), { requestInit: { headers } }),
  );
  return client;
}

const text = (result: Awaited<ReturnType<Client["callTool"]>>): string =>
  (result.content as { type: string; text: string }[]).map((block) => block.text).join("");

beforeEach(async () => {
  upstream = new TestMcpServer();
  await upstream.start();
  queue = new TestApprovalQueue();
  audit = [];
  kept = [];
  services = {
    ask: queue.ask,
    standing: new StandingToolApprovals(),
    audit: (sandbox, detail) => void audit.push(`${sandbox} ${detail}`),
    keepAlways: async (server, tool) => void kept.push(`${server}/${tool}`),
  };
});

afterEach(async () => {
  await client?.close().catch(() => undefined);
  await new Promise<void>((resolve) => {
    gate?.closeAllConnections();
    gate?.close(() => resolve());
  });
  await upstream.stop();
});

describe("the MCP gate, between the SDK's client and the SDK's server", () => {
  it("lists the tools the policy lets the agent see: a denied tool is not shown", async () => {
    const agent = await connect(await startGate(policy));
    const { tools } = await agent.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(["create_issue", "echo_headers", "get_issue", "list_issues"]);
  });

  it("relays an allowed call with the gate's token, never the sandbox's own Authorization, and records it", async () => {
    const agent = await connect(await startGate(policy), { authorization: "Bearer sandbox-made-up" });
    expect(text(await agent.callTool({ name: "get_issue", arguments: { id: 7 } }))).toBe("issue 7: the build is red");
    expect(upstream.calls.map((call) => [call.tool, call.arguments, call.headers.authorization])).toEqual([
      ["get_issue", { id: 7 }, `Bearer ${token}`],
    ]);
    expect(upstream.requests.every((request) => request.headers.authorization === `Bearer ${token}`)).toBe(true);
    expect(audit).toEqual(['fix-42 tracker: tool "get_issue": allowed by the template\'s policy']);
  });

  it("refuses a denied tool's call before the server sees it, telling the agent why in a tool error", async () => {
    const agent = await connect(await startGate(policy));
    const result = await agent.callTool({ name: "delete_repo", arguments: { name: "prod" } });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("the template's policy denies it");
    expect(upstream.calls).toEqual([]);
    expect(audit).toEqual(['fix-42 tracker: tool "delete_repo": refused: the template\'s policy denies it']);
  });

  it("masks the gate's token where the server echoes it in a result", async () => {
    const agent = await connect(await startGate(policy));
    const shown = text(await agent.callTool({ name: "echo_headers", arguments: {} }));
    expect(shown).not.toContain(token);
    expect(shown).toMatch(/^you sent authorization: \[forage-redacted\]\*+$/);
  });

  it("masks the token after text of any script (UTF-8 text read a character per byte would shift the masks)", async () => {
    const agent = await connect(await startGate(policy));
    const shown = text(await agent.callTool({ name: "echo_headers", arguments: { before: `${"İ".repeat(40)} ü ` } }));
    expect(shown).not.toContain(token);
    expect(shown).toBe(
      `${"İ".repeat(40)} ü you sent authorization: ${"[forage-redacted]".padEnd(`Bearer ${token}`.length, "*")}`,
    );
  });

  it("sends the call as the human would see it: its name and arguments, nothing the sandbox added beside them", async () => {
    const agent = await connect(await startGate(policy));
    await agent.callTool({ name: "get_issue", arguments: { id: 3 }, _meta: { progressToken: "x", other: "hidden" } });
    const sent = upstream.requests.map((request) => request.body as { method?: string; params?: unknown } | undefined);
    expect(sent.find((body) => body?.method === "tools/call")?.params).toEqual({
      name: "get_issue",
      arguments: { id: 3 },
    });
    expect(upstream.requests.at(-1)?.headers["content-type"]).toBe("application/json");
  });

  it("holds a tool no list names for a human, showing the server, the tool and the arguments whole; approved once, it runs", async () => {
    const agent = await connect(await startGate({ allow: [], ask: [], deny: [] }));
    const call = agent.callTool({ name: "get_issue", arguments: { id: 9 } });
    const pending = await queue.next();
    expect(pending.ask).toEqual({
      sandbox: "fix-42",
      kind: "mcp-call",
      subject: { server: "tracker", tool: "get_issue", arguments: '{"id":9}' },
    });
    expect(upstream.calls).toEqual([]);
    pending.answer({ decision: "once" });
    expect(text(await call)).toBe("issue 9: the build is red");
    // Once is this call: the next asks again.
    const again = agent.callTool({ name: "get_issue", arguments: { id: 9 } });
    (await queue.next()).answer({ decision: "deny" });
    expect((await again).isError).toBe(true);
    expect(audit).toEqual([
      'fix-42 tracker: tool "get_issue": approved by a human (once)',
      'fix-42 tracker: tool "get_issue": refused by a human',
    ]);
  });

  it("refuses a held call a human denies or nobody answers, and the server never sees it", async () => {
    const agent = await connect(await startGate({ allow: [], ask: ["*"], deny: [] }));
    const denied = agent.callTool({ name: "list_issues", arguments: {} });
    (await queue.next()).answer({ decision: "deny" });
    expect(text(await denied)).toContain("refused by a human");
    const expired = agent.callTool({ name: "list_issues", arguments: {} });
    (await queue.next()).answer({ decision: "expired" });
    expect(text(await expired)).toContain("nobody answered in time");
    expect(upstream.calls).toEqual([]);
  });

  it("lets the tool through unasked, any arguments, while an answer --for lasts; --always also keeps it", async () => {
    const agent = await connect(await startGate({ allow: [], ask: [], deny: [] }));
    const first = agent.callTool({ name: "get_issue", arguments: { id: 1 } });
    (await queue.next()).answer({ decision: "for", untilMs: Date.now() + 60_000 });
    await first;
    expect(text(await agent.callTool({ name: "get_issue", arguments: { id: 2 } }))).toBe("issue 2: the build is red");
    // Another tool of the same server still asks.
    const other = agent.callTool({ name: "list_issues", arguments: {} });
    (await queue.next()).answer({ decision: "always" });
    await other;
    await agent.callTool({ name: "list_issues", arguments: {} });
    expect(queue.asks.map((ask) => (ask.kind === "mcp-call" ? ask.subject.tool : ""))).toEqual([
      "get_issue",
      "list_issues",
    ]);
    expect(kept).toEqual(["tracker/list_issues"]);
    expect(upstream.calls.map((call) => call.tool)).toEqual(["get_issue", "get_issue", "list_issues", "list_issues"]);
  });

  it("refuses instead of asking about a call whose tool name or arguments are too long to show a human whole", async () => {
    const agent = await connect(await startGate({ allow: [], ask: [], deny: [] }));
    await expect(agent.callTool({ name: `get_${"x".repeat(300)}`, arguments: {} })).rejects.toThrow(
      "a tool name over 256 characters is refused",
    );
    const longArgs = await agent.callTool({ name: "get_issue", arguments: { id: 1, pad: "y".repeat(70 * 1024) } });
    expect(text(longArgs)).toContain("its arguments are over 64 KiB");
    expect(queue.asks).toEqual([]);
    expect(upstream.calls).toEqual([]);
  });

  it("answers what is not MCP's transport with the reason: an unknown server, a batch, a message too long, another method", async () => {
    const port = await startGate(policy);
    const post = (path: string, body: string): Promise<Response> =>
      fetch(`http://127.0.0.1:${port}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body,
      });
    const unknown = await post("/_mcp/github", '{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
    expect([unknown.status, await unknown.text()]).toEqual([
      404,
      expect.stringContaining("this sandbox's: /_mcp/tracker"),
    ]);
    const batch = await post(
      "/_mcp/tracker",
      '[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_repo"}}]',
    );
    expect([batch.status, await batch.text()]).toEqual([400, expect.stringContaining("batches are not relayed")]);
    const long = await post(
      "/_mcp/tracker",
      `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"${"x".repeat(1024 * 1024)}"}}`,
    );
    expect([long.status, await long.text()]).toEqual([413, expect.stringContaining("over 1048576 bytes")]);
    const put = await fetch(`http://127.0.0.1:${port}/_mcp/tracker`, { method: "PUT", body: "{}" });
    expect([put.status, put.headers.get("allow")]).toEqual([405, "GET, POST, DELETE"]);
    expect(upstream.requests).toEqual([]);
  });
});

describe("what the gate passes back from a server", () => {
  it("takes denied tools out of any answer with a tools list (a resumed stream replays answers the gate never saw asked for)", () => {
    const answer = JSON.stringify({
      jsonrpc: "2.0",
      id: "replayed",
      result: { tools: [{ name: "get_issue" }, { name: "delete_repo" }, { title: "no name" }], nextCursor: "c" },
    });
    const passed = passServerMessage(answer, policy, new KeyRedactor([]));
    expect(JSON.parse(passed.text)).toEqual({
      jsonrpc: "2.0",
      id: "replayed",
      result: { tools: [{ name: "get_issue" }], nextCursor: "c" },
    });
    expect(passed.hidden).toBe(2);
  });
});

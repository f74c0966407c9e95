import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestMcpServer } from "../support/test-mcp-server.js";
import { TestHost } from "./harness.js";
import { inSandbox, mcpClient, type ToolAnswer } from "./sandbox-calls.js";
import { waitForProxy } from "./proxy-ready.js";

/*
 * An MCP server's tools from inside a real sandbox, through the MCP gate the daemon serves on the
 * API proxy's listener: the MCP TypeScript SDK's client (bundled into the workspace) in the
 * sandbox, the SDK's server on the host's loopback holding out for the token only the host has,
 * human answers given with the real forage-ctl approvals/approve/deny. Nothing leaves the host.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "nft", "tmux");
const token = "tok-tracker-7d41c9e2a85f3b06";
const proxyPort = 18097;

interface McpRequest {
  id: string;
  kind: string;
  subject: { server: string; tool: string; arguments: string };
}

describe.skipIf(!tools.run || !isRoot())("MCP servers' tools through the MCP gate, from a real sandbox", () => {
  const upstream = new TestMcpServer();
  let host: TestHost;
  // The host is made in beforeAll: the client is asked for at each call.
  const list = (): Promise<string[]> => mcpClient(host, "mc", "tracker").list();
  const call = (tool: string, args?: Record<string, unknown>): Promise<ToolAnswer> =>
    mcpClient(host, "mc", "tracker").call(tool, args);
  /** The oldest pending request, waited for, answered with the real CLI. */
  const answerNext = async (...answer: string[]): Promise<McpRequest> => {
    let request: McpRequest | undefined;
    for (let i = 0; i < 150 && request === undefined; i++) {
      request = (JSON.parse((await host.run(["approvals", "--json"])).stdout) as McpRequest[])[0];
      if (request === undefined) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const done = await host.run([...answer, request?.id ?? "none"]);
    expect(done.exitCode, done.stderr).toBe(0);
    return request as McpRequest;
  };

  beforeAll(async () => {
    await upstream.start();
    host = new TestHost(
      "10.200",
      "nobody",
      `  tools:
    network: none
    agents:
      helper: { package: nodejs, executable: node }
    mcp:
      servers:
        tracker:
          url: "${upstream.url.href}"
          secret: tracker-token
          tools: { allow: [get_*, echo_*], ask: [create_*], deny: [delete_*] }
`,
      "",
      { secrets: { "tracker-token": token }, topLevel: `proxy: { port: ${proxyPort} }\napprovals: { deadline: 20 }` },
    );
    const workspace = host.workspace("mc");
    // The SDK's client and what it needs in one file: the sandbox has node, not this repository's node_modules.
    await build({
      input: fileURLToPath(new URL("../support/mcp-client.mjs", import.meta.url)),
      platform: "node",
      logLevel: "warn",
      output: { file: join(workspace, "mcp-client.mjs"), format: "esm" },
    });
    const up = await host.run(["up", "mc", "-t", "tools", "-w", workspace]);
    expect(up.exitCode, up.stderr).toBe(0);
    await waitForProxy(host, ["mc"]);
  }, 180_000);
  afterAll(async () => {
    await host?.cleanup();
    await upstream.stop();
  });

  it("sets up every agent's MCP client to reach the gate, and no file, variable or process in the sandbox holds the token", async () => {
    const gate = `http://10.200.${await host.slotOf("mc")}.1:${proxyPort}/_mcp/tracker`;
    const home = (path: string): Promise<string> => inSandbox(host, "mc", "bash", "-c", `cat "$HOME/${path}"`);
    expect(JSON.parse(await home(".claude.json")).mcpServers).toEqual({ tracker: { type: "http", url: gate } });
    expect(JSON.parse(await home(".gemini/settings.json")).mcpServers).toEqual({ tracker: { httpUrl: gate } });
    expect(JSON.parse(await home(".config/opencode/opencode.json")).mcp.tracker).toMatchObject({
      type: "remote",
      url: gate,
    });
    expect(await home(".codex/config.toml")).toBe(`[mcp_servers.tracker]\nurl = "${gate}"\n`);
    const searched = await host.run([
      "exec",
      "mc",
      "--",
      "bash",
      "-c",
      `grep -rl -- "${token}" /home /run/secrets /workspace /tmp /etc /proc/*/environ 2>/dev/null; env | grep -c -- "${token}"; true`,
    ]);
    expect(searched.stdout.trim()).toBe("0");
  }, 60_000);

  it("shows the agent the tools it may call, and relays an allowed call with the host's token", async () => {
    expect(await list()).toEqual(["create_issue", "echo_headers", "get_issue", "list_issues"]);
    expect(await call("get_issue", { id: 7 })).toEqual({ text: "issue 7: the build is red", isError: false });
    expect(upstream.calls.at(-1)?.headers.authorization).toBe(`Bearer ${token}`);
  }, 60_000);

  it("refuses a denied tool before the server sees it, and masks the token a server echoes", async () => {
    const before = upstream.calls.length;
    const denied = await call("delete_repo", { name: "prod" });
    expect(denied.isError).toBe(true);
    expect(denied.text).toContain("the template's policy denies it");
    expect(upstream.calls.length).toBe(before);
    const echoed = await call("echo_headers");
    expect(echoed.text).not.toContain(token);
    expect(echoed.text).toContain("[forage-redacted]");
  }, 60_000);

  it("holds an asked call for a human: forage-ctl approvals shows the arguments whole, approve runs it, deny refuses it", async () => {
    const approved = call("create_issue", { title: "flaky test" });
    const request = await answerNext("approve");
    expect(request).toMatchObject({
      kind: "mcp-call",
      subject: { server: "tracker", tool: "create_issue", arguments: '{"title":"flaky test"}' },
    });
    expect((await approved).isError).toBe(false);
    const refused = call("create_issue", { title: "again" });
    await answerNext("deny");
    expect(await refused).toMatchObject({ isError: true, text: expect.stringContaining("refused by a human") });
  }, 90_000);

  it("keeps an --always answer in the sandbox: the tool's next calls go unasked, and every call is in the audit log", async () => {
    const first = call("list_issues");
    await answerNext("approve", "--always");
    await first;
    expect(await call("list_issues")).toEqual({ text: "1, 2, 3", isError: false });
    const metadata = JSON.parse(readFileSync(join(host.env.FORAGE_STATE_DIR ?? "", "sandboxes/mc.json"), "utf8")) as {
      mcpAlwaysAllowed?: Record<string, string[]>;
    };
    expect(metadata.mcpAlwaysAllowed).toEqual({ tracker: ["list_issues"] });
    const audit = (await host.run(["audit-log", "mc", "--json"])).stdout;
    const calls = audit
      .trim()
      .split("\n")
      .filter((line) => line.includes('"mcp-call"'))
      .map((line) => (JSON.parse(line) as { detail: string }).detail);
    expect(calls, audit).toEqual([
      'tracker: tool "get_issue": allowed by the template\'s policy',
      'tracker: tool "delete_repo": refused: the template\'s policy denies it',
      'tracker: tool "echo_headers": allowed by the template\'s policy',
      'tracker: tool "create_issue": approved by a human (once)',
      'tracker: tool "create_issue": refused by a human',
      'tracker: tool "list_issues": approved by a human (always)',
      'tracker: tool "list_issues": allowed: a human approved the tool (--for or --always)',
    ]);
  }, 90_000);

  it("shows the servers, their policy, the tools approved --always and the last calls with forage-ctl mcp", async () => {
    const shown = await host.run(["mcp", "mc", "--json", "-n", "2"]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    const view = JSON.parse(shown.stdout) as { served: boolean; servers: unknown[]; calls: { detail: string }[] };
    expect(view.served).toBe(true);
    expect(view.servers).toEqual([
      {
        name: "tracker",
        gateUrl: `http://10.200.${await host.slotOf("mc")}.1:${proxyPort}/_mcp/tracker`,
        url: upstream.url.href,
        secret: "tracker-token",
        command: null,
        sandbox: null,
        sandboxStatus: null,
        env: {},
        allow: ["get_*", "echo_*"],
        ask: ["create_*"],
        deny: ["delete_*"],
        alwaysAllowed: ["list_issues"],
      },
    ]);
    expect(view.calls.map((call) => call.detail)).toEqual([
      'tracker: tool "list_issues": approved by a human (always)',
      'tracker: tool "list_issues": allowed: a human approved the tool (--for or --always)',
    ]);
    const text = (await host.run(["mcp", "mc"])).stdout;
    expect(text).toContain("    approved       list_issues (--always)");
    expect(text).toContain('    token          secret "tracker-token", added by the gate');
    expect(text).not.toContain(token);
  }, 60_000);
});

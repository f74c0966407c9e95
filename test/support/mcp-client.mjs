// An agent's MCP client inside a sandbox (the MCP TypeScript SDK's own, bundled into one file by
// the test): reads the server's URL where Claude Code does (~/.claude.json, mcpServers), connects,
// and prints one JSON line: `list` → the tool names, `call TOOL ARGS_JSON` → the result.
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [server, action, tool, args] = process.argv.slice(2);
const config = JSON.parse(readFileSync(`${homedir()}/.claude.json`, "utf8"));
const url = config.mcpServers[server].url;
const client = new Client({ name: "sandbox-agent", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const out =
  action === "list"
    ? (await client.listTools()).tools.map((each) => each.name).sort()
    : await client.callTool({ name: tool, arguments: JSON.parse(args ?? "{}") }, undefined, { timeout: 120_000 });
process.stdout.write(`${JSON.stringify(out)}\n`);
await client.close();

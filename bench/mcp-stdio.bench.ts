// MCP gate, stdio servers: `npm run bench`. One tools/call at a time to the published
// @modelcontextprotocol/server-everything (its `echo` tool), two ways: through the gate (the SDK's
// client over Streamable HTTP, the gate judging the call, relaying it as a line on the server's
// stdin with an id of its own, and masking the answer; the server started through the real
// launcher, runtime/assets/forage-mcp-server, which exports its secret), and straight (the SDK's
// client speaking stdio to the same server). Both servers run on this host: in a sandbox the
// server's pipes are the same pipes (only its start goes through forage-enter), so this prices
// the gate's own work per call. The paths alternate round by round to cancel drift. Figures: p50
// and p99 of each, and what the gate adds.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { measureAlternating, reportAdded } from "./gate-latency.js";
import { StandingToolApprovals } from "../runtime/gates/mcp-gate/call-judge.js";
import { handleMcpRequest, type McpGateServices } from "../runtime/gates/mcp-gate/mcp-gate-handler.js";
import { StdioServerLink } from "../runtime/gates/mcp-gate/stdio-link.js";
import { packageRoot } from "../runtime/core/package-root.js";

const rounds = 5;
const callsPerRound = 200;
const token = "tok-bench-stdio-9e2b41c7d0a85f36";
const everything = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");
const launcher = readFileSync(join(packageRoot(), "runtime/assets/forage-mcp-server"), "utf8");
const base = mkdtempSync(join(tmpdir(), "forage-bench-mcp-"));
const envDir = join(base, "env");
mkdirSync(envDir);
writeFileSync(join(envDir, "API_TOKEN"), `${token}\n`);

const services: McpGateServices = {
  ask: () => Promise.resolve({ decision: "deny" }),
  standing: new StandingToolApprovals(),
  audit: () => undefined,
};
const link = new StdioServerLink("everything", () =>
  Promise.resolve([
    "bash",
    "-c",
    launcher,
    "forage-mcp-server",
    envDir,
    join(base, "server.log"),
    process.execPath,
    everything,
    "stdio",
  ]),
);
const policy = { allow: ["echo"], ask: [], deny: ["toggle-*"] };
const route = {
  sandbox: "bench",
  servers: new Map([["everything", { name: "everything", secrets: [token], policy, link }]]),
};
const gate = createServer((req, res) => handleMcpRequest(route, req, res, services));
await new Promise<void>((resolve) => gate.listen(0, "127.0.0.1", resolve));
const gatePort = (gate.address() as AddressInfo).port;

const direct = new Client({ name: "bench", version: "1.0.0" });
await direct.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: [everything, "stdio"],
    env: { API_TOKEN: token },
    stderr: "ignore",
  }),
);
const gated = new Client({ name: "bench", version: "1.0.0" });
await gated.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${gatePort}/_mcp/everything`)));
const paths = { direct, gate: gated };
reportAdded(
  `MCP gate, stdio server: tools/call one at a time, ${rounds} alternating rounds of ${callsPerRound} (server-everything's echo)`,
  await measureAlternating(
    (path, i) => paths[path].callTool({ name: "echo", arguments: { message: `call ${i}` } }),
    rounds,
    callsPerRound,
  ),
);
for (const each of Object.values(paths)) await each.close();
await link.close();
gate.closeAllConnections();
gate.close();
rmSync(base, { recursive: true, force: true });

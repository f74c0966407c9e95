// MCP gate benchmark: `npm run bench`. One tools/call at a time through the MCP gate (policy
// judged, message read and sent on, the token added, the answer's event stream read event by
// event and searched for the token) against the same call sent straight to the server, both with
// the MCP TypeScript SDK's client, to the SDK's server on loopback (sessions, answers as event
// streams). Server, gate and clients share this process (the proxy bench separates them for load;
// here one call at a time, the gate's own work is what is priced). The two paths alternate round
// by round to cancel drift. Figures: p50 and p99 of each, and what the gate adds.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { measureAlternating, reportAdded } from "./gate-latency.js";
import { StandingToolApprovals } from "../runtime/gates/mcp-gate/call-judge.js";
import { handleMcpRequest, type McpGateServices } from "../runtime/gates/mcp-gate/mcp-gate-handler.js";
import { TestMcpServer } from "../test/support/test-mcp-server.js";

const rounds = 5;
const callsPerRound = 200;
const token = "tok-bench-3f9a1c7e5b2d8406";

const upstream = new TestMcpServer();
await upstream.start();
const services: McpGateServices = {
  ask: () => Promise.resolve({ decision: "deny" }),
  standing: new StandingToolApprovals(),
  audit: () => undefined,
};
const route = upstream.gateRoute("bench", token, { allow: ["get_*"], ask: [], deny: ["delete_*"] });
const gate = createServer((req, res) => handleMcpRequest(route, req, res, services));
await new Promise<void>((resolve) => gate.listen(0, "127.0.0.1", resolve));
const gatePort = (gate.address() as AddressInfo).port;

async function client(url: URL, headers: Record<string, string> = {}): Promise<Client> {
  const made = new Client({ name: "bench", version: "1.0.0" });
  await made.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return made;
}
const paths = {
  direct: await client(upstream.url, { authorization: `Bearer ${token}` }),
  gate: await client(new URL(`http://127.0.0.1:${gatePort}/_mcp/tracker`)),
};
reportAdded(
  `MCP gate: tools/call one at a time, ${rounds} alternating rounds of ${callsPerRound} (the SDK's client and server, loopback)`,
  await measureAlternating(
    (path, i) => paths[path].callTool({ name: "get_issue", arguments: { id: i } }),
    rounds,
    callsPerRound,
  ),
);
for (const each of Object.values(paths)) await each.close();
gate.closeAllConnections();
gate.close();
await upstream.stop();

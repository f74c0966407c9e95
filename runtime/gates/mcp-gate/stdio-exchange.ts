import type { ServerResponse } from "node:http";
import type { KeyRedactor } from "../shared/key-redactor.js";
import type { ClientMessage } from "./json-rpc.js";
import { isRecord, rpcError } from "./json-rpc.js";
import type { McpStdioRoute } from "./mcp-route.js";
import { maskText, passServerMessage } from "./server-messages.js";

/** JSON-RPC's code for a server-side failure (MCP's "internal error"). */
const internalError = -32603;

/**
 * Relays one judged message to a stdio server and answers the sandbox as a Streamable HTTP
 * server that answers in JSON does: a request gets the server's answer (under the agent's own id,
 * passed through passServerMessage: denied tools out, secrets masked; an initialize without the
 * client features whose requests the gate answers itself); a notification (but a cancellation), or an
 * answer to a request the server never had relayed, is taken with 202. A server that cannot be
 * started or ends mid-call gives a JSON-RPC error saying so, its words masked too.
 */
export async function exchangeStdio(
  server: McpStdioRoute,
  read: ClientMessage,
  message: Record<string, unknown>,
  res: ServerResponse,
  redactor: KeyRedactor,
): Promise<void> {
  try {
    if (read.kind !== "request") {
      // An agent's cancellation names its own id, which the server never saw (it has the gate's):
      // the gate cancels at the server itself when the agent leaves a request (stdio-link.ts).
      if (read.kind === "notification" && read.method !== "notifications/cancelled") await server.link.notify(message);
      return void res.writeHead(202).end();
    }
    const left = new AbortController();
    res.once("close", () => left.abort());
    const sent = read.method === "initialize" ? withoutClientFeatures(message) : message;
    const answer = await server.link.request(sent, left.signal);
    const passed = passServerMessage(JSON.stringify({ ...answer, id: read.id }), server.policy, redactor);
    send(res, passed.text);
  } catch (error) {
    const why = maskText(error instanceof Error ? error.message : String(error), redactor).text;
    send(res, rpcError(read.kind === "request" ? read.id : null, internalError, `forage: ${why}`));
  }
}

/** What a client offers that only a server's requests to it use: a stdio server's requests end at the gate (stdio-link.ts). */
const clientFeatures = ["sampling", "roots", "elicitation"];

/**
 * An initialize request without the client features the gate cannot carry to the agent: a
 * server told of them would ask for them (and offer tools that need them), and be told "not found".
 */
function withoutClientFeatures(message: Record<string, unknown>): Record<string, unknown> {
  const { params } = message;
  if (!isRecord(params) || !isRecord(params.capabilities)) return message;
  const capabilities = Object.fromEntries(
    Object.entries(params.capabilities).filter(([feature]) => !clientFeatures.includes(feature)),
  );
  return { ...message, params: { ...params, capabilities } };
}

function send(res: ServerResponse, body: string): void {
  if (res.destroyed) return;
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
}

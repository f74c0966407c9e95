import type { IncomingMessage, ServerResponse } from "node:http";
import { redactorFor, type KeyRedactor } from "../shared/key-redactor.js";
import { maxShownToolLength } from "../approvals/approval-schema.js";
import { judgeCall, type CallJudgeServices } from "./call-judge.js";
import { isRecord, readClientMessage, rpcCodes, rpcError, toolErrorResult, type ClientMessage } from "./json-rpc.js";
import type { McpSandboxRoute, McpServerRoute } from "./mcp-route.js";
import { readBounded } from "./bounded-read.js";
import { exchangeUpstream } from "./upstream-exchange.js";
import { exchangeStdio } from "./stdio-exchange.js";

/** The longest message a sandbox may POST (a tool's arguments included). */
export const maxMessageBytes = 1024 * 1024;

/** Where a sandbox reaches a server: /_mcp/<name> (a path no agent route of the API proxy can take). */
const serverPath = /^\/_mcp\/([a-z][a-z0-9-]{0,63})\/?$/;

/** What the gate's handler shares across requests. */
export interface McpGateServices extends CallJudgeServices {
  /** Writes one line of the sandbox's audit log (gate-audit.ts); never throws. */
  audit: (sandbox: string, detail: string) => void;
}

/**
 * Serves one HTTP request a sandbox sends to an MCP server through the gate (Streamable HTTP:
 * POST a message, GET the server's stream, DELETE the session). A tools/call is judged first
 * (call-judge.ts): refused calls never reach the server, and the agent gets a tool error saying
 * why; every call is a line in the sandbox's audit log. What goes to the server is the message
 * rebuilt from what the gate read and judged, with the gate's headers; what comes back is
 * filtered (server-messages.ts).
 */
export function handleMcpRequest(
  route: McpSandboxRoute,
  req: IncomingMessage,
  res: ServerResponse,
  services: McpGateServices,
): void {
  const name = serverPath.exec(new URL(req.url ?? "/", "http://gate").pathname)?.[1];
  const server = name === undefined ? undefined : route.servers.get(name);
  if (server === undefined) {
    const known = [...route.servers.keys()].map((each) => `/_mcp/${each}`).join(", ") || "none";
    return answer(res, 404, rpcError(null, rpcCodes.invalidRequest, `no MCP server there; this sandbox's: ${known}`));
  }
  const redactor = redactorFor(new Set(server.secrets));
  // A stdio server has no stream of its own to GET and no session to DELETE: the transport lets a server say 405.
  if ((req.method === "GET" || req.method === "DELETE") && "url" in server)
    return void exchangeUpstream(server, req.method, req.headers, undefined, res, redactor);
  if (req.method !== "POST") {
    res.setHeader("allow", "url" in server ? "GET, POST, DELETE" : "POST");
    return answer(
      res,
      405,
      rpcError(null, rpcCodes.invalidRequest, `${req.method ?? ""} is not a method of MCP's transport`),
    );
  }
  void readBounded(req, maxMessageBytes, "the message").then(
    (body) => relayMessage(route.sandbox, server, body, req, res, services, redactor),
    (reason: string) => answer(res, 413, rpcError(null, rpcCodes.invalidRequest, reason)),
  );
}

async function relayMessage(
  sandbox: string,
  server: McpServerRoute,
  body: string,
  req: IncomingMessage,
  res: ServerResponse,
  services: McpGateServices,
  redactor: KeyRedactor,
): Promise<void> {
  const read = readClientMessage(body);
  if ("refusal" in read) return answer(res, 400, rpcError(null, read.code, read.refusal));
  let message = read.message;
  if (read.kind === "request" && read.method === "tools/call") {
    const judged = await judgeToolCall(sandbox, server, read, services);
    if ("refused" in judged) return answer(res, 200, judged.refused);
    message = judged.call;
    // Asked calls wait minutes: a sandbox gone meanwhile gets no call made on its behalf.
    if (res.destroyed || req.socket.destroyed)
      return services.audit(sandbox, `${server.name}: the call was not made: the sandbox left before it was sent`);
  }
  if ("url" in server) await exchangeUpstream(server, "POST", req.headers, JSON.stringify(message), res, redactor);
  else await exchangeStdio(server, read, message, res, redactor);
}

/**
 * The call to send (rebuilt from its name and arguments alone: what a human is shown is all that
 * goes), or the answer to a call the gate refuses: a tool error the agent's model reads.
 */
async function judgeToolCall(
  sandbox: string,
  server: McpServerRoute,
  call: Extract<ClientMessage, { kind: "request" }>,
  services: McpGateServices,
): Promise<{ call: Record<string, unknown> } | { refused: string }> {
  const tool = call.params?.name;
  const args = call.params?.arguments ?? {};
  if (typeof tool !== "string" || !isRecord(args))
    return {
      refused: rpcError(
        call.id,
        rpcCodes.invalidParams,
        "tools/call takes params.name (a string) and params.arguments (an object)",
      ),
    };
  // Bounded before anything records it: the name goes into the audit log and the approval.
  if (tool.length > maxShownToolLength)
    return {
      refused: rpcError(
        call.id,
        rpcCodes.invalidParams,
        `a tool name over ${maxShownToolLength} characters is refused`,
      ),
    };
  const judged = await judgeCall(sandbox, server, tool, JSON.stringify(args), services);
  services.audit(sandbox, `${server.name}: tool ${JSON.stringify(tool)}: ${judged.how}`);
  if (judged.pass)
    return { call: { jsonrpc: "2.0", id: call.id, method: "tools/call", params: { name: tool, arguments: args } } };
  return {
    refused: toolErrorResult(
      call.id,
      `forage: the call of ${tool} (MCP server ${server.name}) was not made: ${judged.how}. The sandbox's MCP gate stopped it before the server saw it.`,
    ),
  };
}

function answer(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
}

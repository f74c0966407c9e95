/** A JSON-RPC id as MCP uses it (never null in a request). */
export type RpcId = string | number;

/** One message an agent POSTs to an MCP server, as the gate reads it. */
export type ClientMessage = (
  | { kind: "request"; id: RpcId; method: string; params: Record<string, unknown> | undefined }
  | { kind: "notification"; method: string }
  | { kind: "response"; id: RpcId }
) & {
  /** The message as parsed: what the gate sends on is this, serialized again, so what it judged is what goes. */
  message: Record<string, unknown>;
};

/** JSON-RPC's codes the gate answers with (MCP's schema.ts). */
export const rpcCodes = { parseError: -32700, invalidRequest: -32600, invalidParams: -32602 } as const;

/**
 * The one JSON-RPC message of a POST body, or why it is refused. A batch (an array) is refused:
 * MCP 2025-06-18 removed batching, and a gate that judged only the first call of a batch would
 * let the rest past. So is anything of two shapes at once (a method beside a result), a method that
 * is not a string, and a tools/call without an id (a notification: nothing could carry its
 * answer, and a server may still run it). `message` is rebuilt from the fields JSON-RPC defines,
 * nothing else: what the gate sends on is exactly what it judged.
 */
export function readClientMessage(body: string): ClientMessage | { refusal: string; code: number } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { refusal: "the body is not JSON", code: rpcCodes.parseError };
  }
  if (Array.isArray(parsed))
    return { refusal: "JSON-RPC batches are not relayed: send one message per POST", code: rpcCodes.invalidRequest };
  if (!isRecord(parsed) || parsed.jsonrpc !== "2.0")
    return { refusal: 'not a JSON-RPC 2.0 message ("jsonrpc": "2.0")', code: rpcCodes.invalidRequest };
  const { id, method, params } = parsed;
  const idOk = typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
  const answers = "result" in parsed || "error" in parsed;
  if ("method" in parsed) {
    if (typeof method !== "string" || answers)
      return { refusal: "a request has a string method and no result or error", code: rpcCodes.invalidRequest };
    if (params !== undefined && !isRecord(params))
      return { refusal: "params must be an object", code: rpcCodes.invalidRequest };
    const withParams = params === undefined ? {} : { params };
    if (id === undefined) {
      if (method === "tools/call")
        return { refusal: "a tools/call must have an id (its answer is the tool's)", code: rpcCodes.invalidRequest };
      return { kind: "notification", method, message: { jsonrpc: "2.0", method, ...withParams } };
    }
    if (!idOk) return { refusal: "a request's id must be a string or a number", code: rpcCodes.invalidRequest };
    return { kind: "request", id: id as RpcId, method, params, message: { jsonrpc: "2.0", id, method, ...withParams } };
  }
  if (idOk && "result" in parsed !== "error" in parsed) {
    const outcome = "result" in parsed ? { result: parsed.result } : { error: parsed.error };
    return { kind: "response", id: id as RpcId, message: { jsonrpc: "2.0", id, ...outcome } };
  }
  return { refusal: "neither a request, a notification nor a response", code: rpcCodes.invalidRequest };
}

/** A JSON-RPC error response, as text. */
export function rpcError(id: RpcId | null, code: number, message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });
}

/** A tools/call result the agent's model reads as the tool's error (MCP: errors it should see and act on). */
export function toolErrorResult(id: RpcId, text: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text }], isError: true } });
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

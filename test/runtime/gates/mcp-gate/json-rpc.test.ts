import { describe, expect, it } from "vitest";
import { readClientMessage } from "../../../../runtime/gates/mcp-gate/json-rpc.js";

describe("reading the message a sandbox POSTs to an MCP server", () => {
  it("tells requests, notifications and responses apart", () => {
    expect(readClientMessage('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}')).toMatchObject({
      kind: "request",
      id: 1,
      method: "tools/call",
      params: { name: "x" },
    });
    expect(readClientMessage('{"jsonrpc":"2.0","method":"notifications/initialized"}')).toMatchObject({
      kind: "notification",
    });
    expect(readClientMessage('{"jsonrpc":"2.0","id":"a","result":{}}')).toMatchObject({ kind: "response", id: "a" });
  });

  it.each([
    ["not JSON", "{", "not JSON"],
    [
      "a batch, whose later calls a gate judging one would let past",
      '[{"jsonrpc":"2.0","id":1,"method":"tools/call"}]',
      "batches",
    ],
    ["another JSON-RPC version", '{"jsonrpc":"1.0","id":1,"method":"x"}', "JSON-RPC 2.0"],
    ["an id that is neither a string nor a number", '{"jsonrpc":"2.0","id":{},"method":"x"}', "id"],
    ["params that are not an object", '{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}', "params"],
    ["nothing it could be", '{"jsonrpc":"2.0","id":1}', "neither"],
    [
      "a tools/call without an id, which a server may still run",
      '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"x"}}',
      "must have an id",
    ],
    ["a method beside a result", '{"jsonrpc":"2.0","id":1,"method":"tools/call","result":{}}', "no result or error"],
    ["a method that is not a string", '{"jsonrpc":"2.0","id":1,"method":["tools/call"],"result":{}}', "string method"],
  ])("refuses %s", (_what, body, said) => {
    const read = readClientMessage(body);
    expect("refusal" in read && read.refusal).toContain(said);
  });

  it("rebuilds the message from JSON-RPC's fields alone", () => {
    const read = readClientMessage('{"jsonrpc":"2.0","id":1,"method":"ping","extra":{"a":1}}');
    expect("message" in read && read.message).toEqual({ jsonrpc: "2.0", id: 1, method: "ping" });
  });

  it("keeps only the last of a repeated key, as what it sends on (and shows a human) is what it read", () => {
    const read = readClientMessage(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"safe","name":"delete_repo"}}',
    );
    expect("message" in read && JSON.stringify(read.message)).toBe(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_repo"}}',
    );
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestUpstream } from "../../../support/test-upstream.js";
import { ProxyFixture } from "../../../support/proxy-fixture.js";

/*
 * The API proxy's listener hands /_mcp/… to the MCP gate (handed in, as the daemon does), counting
 * each message against the sandbox's request limit; without a gate the path is an unknown agent's.
 * The gate here is a stand-in that names who it served (mcp-gate.test.ts tests the real one).
 */
const upstream = new TestUpstream();
let proxy: ProxyFixture;
const served: string[] = [];

beforeAll(async () => {
  await upstream.start();
  proxy = new ProxyFixture(upstream, { requests: 3, tokens: null, windowMs: 60_000 });
  await proxy.start();
});
afterAll(async () => {
  await proxy.stop();
  await upstream.stop();
});

describe("the proxy's listener and the MCP gate", () => {
  it("answers /_mcp/ as an unknown agent's path while no gate is handed in", async () => {
    expect((await proxy.send("POST", "/_mcp/tracker", {}, "{}")).status).toBe(404);
  });

  it("hands /_mcp/ to the gate with the sandbox the listener serves, and refuses past the request limit with a JSON-RPC error", async () => {
    proxy.services.mcp = (caller, req, res) => {
      served.push(`${caller.sandbox} ${req.url ?? ""}`);
      res.end("{}");
    };
    // The first request of the window was the 404 above.
    expect((await proxy.send("POST", "/_mcp/tracker", {}, "{}")).status).toBe(200);
    expect((await proxy.send("GET", "/_mcp/tracker")).status).toBe(200);
    const limited = await proxy.send("POST", "/_mcp/tracker", {}, "{}");
    expect(limited.status).toBe(429);
    expect(limited.headers["retry-after"]).toMatch(/^\d+$/);
    expect(JSON.parse(limited.body)).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { message: expect.stringContaining("over its limit of 3 requests") },
    });
    expect(served).toEqual(["alpha /_mcp/tracker", "alpha /_mcp/tracker"]);
  });
});

import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TestUpstream } from "../../../support/test-upstream.js";
import { ProxyFixture } from "../../../support/proxy-fixture.js";

/*
 * A sandbox abusing the proxy's paths, headers, audit log and connections, each attempt with a
 * control that shows it works where the protection does not apply. Real HTTPS upstream on loopback.
 */
const upstream = new TestUpstream();
let proxy: ProxyFixture;

beforeAll(async () => {
  await upstream.start();
  proxy = new ProxyFixture(upstream);
  await proxy.setKeys({ anthropic: "sk-ant-real-abuse" });
  proxy.addAgent("claude", "proxy", "anthropic", { provider: "anthropic", header: "x-api-key", value: "{key}" });
  proxy.route = { ...proxy.route, filter: { ...proxy.route.filter, pathPrefixes: ["/v1/"] } };
  await proxy.start({ headersMs: 600, requestMs: 5000 });
});
afterAll(async () => {
  await proxy.stop();
  await upstream.stop();
});
beforeEach(() => void upstream.received.splice(0));

const auditTail = async (count: number): Promise<Record<string, unknown>[]> => {
  await proxy.services.audit.flushed();
  return proxy.auditRecords().slice(-count);
};

describe("paths are read by a strict grammar", () => {
  it.each([
    "/v1/%c0%ae%c0%ae/files",
    "/v1/%u002e%u002e/files",
    "/v1/models%00.json",
    "/v1/%2e%2e/files",
    "/v1/a%2fb",
    "/v1//models",
    "/v1/%ff",
  ])("refuses %s before it reaches the upstream", async (path) => {
    expect((await proxy.send("GET", `/claude${path}`)).status).toBe(400);
    expect(upstream.received).toEqual([]);
  });

  it("control: forwards a plain path as it is", async () => {
    expect((await proxy.send("POST", "/claude/v1/models/gemini-pro:generateContent", {}, "{}")).status).toBe(200);
    expect(upstream.received.map((request) => request.path)).toEqual(["/v1/models/gemini-pro:generateContent"]);
  });

  it("forwards a harmless escape in its one canonical form, the form the filter read", async () => {
    expect((await proxy.send("GET", "/claude/v1/%6dodels/caf%C3%A9")).status).toBe(200);
    expect(upstream.received.map((request) => request.path)).toEqual(["/v1/models/caf%C3%A9"]);
  });
});

describe("refusals tell the sandbox what to fix, never the upstream's address or errors", () => {
  it("answers 502 with a generic text, the cause in the audit log", async () => {
    proxy.addAgent("down", "proxy", "anthropic", {
      provider: "anthropic",
      header: "x-api-key",
      value: "{key}",
      upstream: "https://localhost:1",
    });
    const reply = await proxy.send("GET", "/down/v1/models");
    expect(reply.status).toBe(502);
    expect(reply.body).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|localhost:1|::1/);
    // Control: the cause is known, and recorded for the host.
    expect((await auditTail(1))[0]?.detail).toMatch(/localhost:1: /);
  });
});

describe("headers only a browser or a proxy chain needs", () => {
  it("drops Cookie and Expect on the way up, and Set-Cookie on the way back", async () => {
    const reply = await proxy.send(
      "POST",
      "/claude/v1/reflect",
      { cookie: "session=stolen", expect: "100-continue", "x-kept": "yes" },
      "{}",
    );
    expect(upstream.received[0]?.headers.cookie).toBeUndefined();
    expect(upstream.received[0]?.headers.expect).toBeUndefined();
    expect(reply.headers["set-cookie"]).toBeUndefined();
    // Control: other headers pass both ways, and the upstream did set a cookie.
    expect(upstream.received[0]?.headers["x-kept"]).toBe("yes");
    expect(reply.headers["x-echo"]).toBeDefined();
  });
});

describe("the audit log cannot be flooded", () => {
  it("cuts a 15 KB path to a prefix and a hash of the whole", async () => {
    const long = `/v1/${"a".repeat(15_000)}`;
    expect((await proxy.send("GET", `/claude${long}`)).status).toBe(200);
    // Control: the upstream got the whole path.
    expect(upstream.received[0]?.path).toHaveLength(long.length);
    const [record] = await auditTail(1);
    expect(JSON.stringify(record).length).toBeLessThan(1024);
    expect(record?.path).toMatch(/…\[15004 chars, sha256 [0-9a-f]{16}\]$/);
  });

  it("condenses every refusal kind to one line per window per sandbox, with a count", async () => {
    const before = (await auditTail(100_000)).length;
    for (let index = 0; index < 30; index += 1) await proxy.send("GET", "/claude/v1/%00");
    for (let index = 0; index < 30; index += 1) await proxy.send("DELETE", "/claude/v1/models");
    const added = (await auditTail(100_000)).slice(before);
    expect(added.filter((record) => record.refused === "bad-path").length).toBeLessThanOrEqual(2);
    expect(added.filter((record) => record.refused === "method").length).toBeLessThanOrEqual(2);
    // Control: forwarded requests still get a line each.
    for (let index = 0; index < 3; index += 1) await proxy.send("GET", "/claude/v1/models");
    expect((await auditTail(3)).map((record) => record.refused)).toEqual([null, null, null]);
  });
});

describe("half-sent requests", () => {
  /** Sends one header byte every 100 ms and says after how many ms the server hung up (or "open" at 2.5 s). */
  const slowloris = (port: number): Promise<number | "open"> =>
    new Promise((resolve) => {
      const started = Date.now();
      const socket = connect(port, "127.0.0.1", () => socket.write("GET /claude/v1/models HTTP/1.1\r\nHost: p\r\n"));
      const drip = setInterval(() => socket.write("x"), 100);
      const stop = (result: number | "open"): void => {
        clearInterval(drip);
        socket.destroy();
        resolve(result);
      };
      socket.on("close", () => stop(Date.now() - started));
      socket.on("error", () => undefined);
      setTimeout(() => stop("open"), 2500);
    });

  it("are cut off at the header timeout (600 ms here) within its checking interval", async () => {
    const closedAfter = await slowloris(proxy.port);
    expect(closedAfter).not.toBe("open");
    expect(closedAfter as number).toBeLessThan(600 + 60 + 400);
  });

  it("control: a server with the same timeout and Node's default checking interval keeps them open", async () => {
    const plain: Server = createServer({ headersTimeout: 600, requestTimeout: 5000 }, (_req, res) => res.end());
    await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
    try {
      expect(await slowloris((plain.address() as AddressInfo).port)).toBe("open");
    } finally {
      plain.closeAllConnections();
      plain.close();
    }
  });
});

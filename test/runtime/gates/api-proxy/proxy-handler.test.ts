import { request } from "node:http";
import { connect } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TestUpstream } from "../../../support/test-upstream.js";
import { ProxyFixture } from "../../../support/proxy-fixture.js";

/*
 * The proxy's request handling against a real HTTPS upstream on loopback (trusting a test CA):
 * what reaches the upstream, and what the sandbox gets back.
 */
const upstream = new TestUpstream();
let proxy: ProxyFixture;
const placeholder = `forage-placeholder-${"ab".repeat(32)}`;
const otherPlaceholder = `forage-placeholder-${"cd".repeat(32)}`;

beforeAll(async () => {
  await upstream.start();
  proxy = new ProxyFixture(upstream);
  await proxy.setKeys({
    anthropic: "sk-ant-real",
    openai: "sk-openai-real",
    google: "g-real",
    custom: "c-real",
    bound: "sk-bound-real",
  });
  proxy.addAgent("claude", "proxy", "anthropic", { provider: "anthropic", header: "x-api-key", value: "{key}" });
  proxy.addAgent("codex", "proxy", "openai", {
    provider: "openai",
    header: "authorization",
    value: "Bearer {key}",
    upstream: `https://localhost:${upstream.port}/prefix`,
  });
  proxy.addAgent("gemini", "proxy", "google", { provider: "google", header: "x-goog-api-key", value: "{key}" });
  proxy.addAgent("tool", "proxy", "custom", { provider: "custom", header: "x-tool-token", value: "Token {key} v1" });
  proxy.addAgent("holder", "placeholder", "bound", {
    provider: "openai",
    header: "authorization",
    value: "Bearer {key}",
  });
  proxy.addAgent("gholder", "placeholder", "bound", { provider: "google", header: "x-goog-api-key", value: "{key}" });
  // Same server, another host name: its secret's placeholder is bound to localhost only.
  proxy.addAgent("elsewhere", "placeholder", "openai", {
    provider: "openai",
    header: "authorization",
    value: "Bearer {key}",
    upstream: `https://127.0.0.1:${upstream.port}`,
    hosts: [`127.0.0.1:${upstream.port}`],
  });
  proxy.route = {
    ...proxy.route,
    placeholders: [
      { placeholder, secret: "bound", hosts: [`localhost:${upstream.port}`] },
      { placeholder: otherPlaceholder, secret: "openai", hosts: [`localhost:${upstream.port}`] },
    ],
  };
  await proxy.start();
});
afterAll(async () => {
  await proxy.stop();
  await upstream.stop();
});
beforeEach(() => void upstream.received.splice(0));

const last = () => upstream.received.at(-1);

/** Writes raw bytes to the proxy and reads everything until it closes. */
function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(bytes));
    let text = "";
    socket.on("data", (chunk) => (text += chunk.toString()));
    socket.on("end", () => resolve(text));
    socket.on("error", reject);
  });
}

describe("with auth proxy the key is set by the proxy", () => {
  it.each([
    ["claude", "/v1/messages", "x-api-key", "sk-ant-real"],
    ["codex", "/prefix/v1/chat/completions", "authorization", "Bearer sk-openai-real"],
    ["gemini", "/v1beta/models", "x-goog-api-key", "g-real"],
    ["tool", "/v1/run", "x-tool-token", "Token c-real v1"],
  ])("%s: the upstream gets %s with the key the provider expects", async (agent, upstreamPath, header, value) => {
    const path = upstreamPath.replace("/prefix", "");
    const reply = await proxy.send(
      "POST",
      `/${agent}${path}?stream=true`,
      { "content-type": "application/json" },
      "{}",
    );
    expect(reply.status).toBe(200);
    expect(last()?.path).toBe(`${upstreamPath}?stream=true`);
    expect(last()?.headers[header]).toBe(value);
  });

  it("drops keys, identity and forwarding headers the sandbox sends, and hop-by-hop headers", async () => {
    await proxy.send("GET", "/claude/v1/models", {
      "x-api-key": "sk-stolen",
      authorization: "Bearer sk-stolen",
      "x-forage-sandbox": "someone-else",
      "x-forwarded-for": "1.2.3.4",
      connection: "x-private",
      "x-private": "hop",
      "proxy-authorization": "Basic x",
      "x-kept": "yes",
    });
    const headers = last()?.headers ?? {};
    expect(headers["x-api-key"]).toBe("sk-ant-real");
    expect(headers.authorization).toBeUndefined();
    for (const name of ["x-forage-sandbox", "x-forwarded-for", "x-private", "proxy-authorization"])
      expect(headers[name], name).toBeUndefined();
    expect(headers["x-kept"]).toBe("yes");
    expect(headers.host).toBe(`localhost:${upstream.port}`);
  });

  it("drops method overrides and client-address headers, and the sandbox's own key parameter", async () => {
    await proxy.send("POST", "/gemini/v1beta/models?key=g-stolen&alt=sse", {
      "x-http-method-override": "DELETE",
      "true-client-ip": "1.2.3.4",
    });
    expect(last()?.headers["x-http-method-override"]).toBeUndefined();
    expect(last()?.headers["true-client-ip"]).toBeUndefined();
    expect(last()?.path).toBe("/v1beta/models?alt=sse");
    expect(last()?.headers["x-goog-api-key"]).toBe("g-real");
  });

  it("frames each body itself: a body hidden in a GET never becomes a request of its own upstream", async () => {
    const smuggled = "POST /v1/files HTTP/1.1\r\nHost: x\r\nx-api-key: sk-attacker\r\nContent-Length: 4000\r\n\r\n";
    const chunked = `GET /claude/v1/models HTTP/1.1\r\nHost: p\r\nTransfer-Encoding: chunked\r\n\r\n${smuggled.length.toString(16)}\r\n${smuggled}\r\n0\r\n\r\n`;
    const listed = `GET /claude/v1/models HTTP/1.1\r\nHost: p\r\nConnection: content-length\r\nContent-Length: ${smuggled.length}\r\n\r\n${smuggled}`;
    for (const raw of [chunked, listed]) {
      const replies = await rawExchange(
        proxy.port,
        raw + "GET /claude/v1/models HTTP/1.1\r\nHost: p\r\nConnection: close\r\n\r\n",
      );
      expect(replies.match(/HTTP\/1\.1 200/g)).toHaveLength(2);
    }
    expect(upstream.received.filter((request) => request.path === "/v1/files")).toEqual([]);
    expect(upstream.received.map((request) => request.headers["x-api-key"])).toEqual([
      "sk-ant-real",
      "sk-ant-real",
      "sk-ant-real",
      "sk-ant-real",
    ]);
    // The hidden request arrived as what it was: the body of the GET it was sent in.
    expect(upstream.received.map((request) => request.body).sort()).toEqual(["", "", smuggled, smuggled]);
  });

  it("drops hop-by-hop headers of the answer too", async () => {
    const reply = await proxy.send("GET", "/claude/v1/models");
    expect(reply.headers["x-upstream-private"]).toBeUndefined();
  });
});

describe("with auth placeholder the key replaces the stand-in only for its hosts", () => {
  it("swaps a bound placeholder that is a whole credential in the provider's own key header", async () => {
    await proxy.send("GET", "/holder/v1/models?a=1", { authorization: `Bearer ${placeholder}` });
    expect(last()?.headers.authorization).toBe("Bearer sk-bound-real");
    expect(last()?.path).toBe("/v1/models?a=1");
  });

  it("swaps a placeholder in the key query parameter for Google, whose API reads keys there", async () => {
    await proxy.send("GET", `/gholder/v1beta/models?key=${placeholder}&a=1`);
    expect(last()?.path).toBe("/v1beta/models?key=sk-bound-real&a=1");
  });

  it("never swaps a placeholder anywhere an API could echo it back: a path, another header, part of a value", async () => {
    await proxy.send("GET", `/holder/v1/models/${placeholder}?model=${placeholder}`, {
      "anthropic-beta": placeholder,
      authorization: `Bearer ${placeholder} extra`,
    });
    const text = JSON.stringify(last());
    expect(text).not.toContain("sk-bound-real");
    expect(last()?.headers["anthropic-beta"]).toBe(placeholder);
  });

  it("passes its agent's placeholder on unchanged to a host its secret is not bound to", async () => {
    await proxy.send("GET", "/elsewhere/v1/models", { authorization: `Bearer ${otherPlaceholder}` });
    expect(last()?.headers.authorization).toBe(`Bearer ${otherPlaceholder}`);
    expect(JSON.stringify(last())).not.toContain("sk-openai-real");
  });

  it("sets no key at all when the request carries no placeholder", async () => {
    await proxy.send("GET", "/holder/v1/models", { authorization: "Bearer mine" });
    expect(last()?.headers.authorization).toBe("Bearer mine");
  });
});

describe("streams and errors", () => {
  it("relays server-sent events as they come: the first arrives while the upstream still holds the second", async () => {
    const events: string[] = [];
    const done = new Promise<void>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port: proxy.port, method: "POST", path: "/claude/v1/sse" }, (res) => {
        res.on("data", (chunk: Buffer) => {
          events.push(chunk.toString());
          if (events.length === 1) upstream.releaseStream();
        });
        res.on("end", resolve);
        res.on("error", reject);
      });
      req.end("{}");
    });
    await done;
    expect(events[0]).toContain("message_start");
    expect(events.join("")).toContain("message_delta");
  });

  it("reads the upstream's answer only as fast as the sandbox reads it, and relays it whole", async () => {
    const total = 64 * 1024 * 1024;
    const chunk = Buffer.alloc(1024 * 1024, "a");
    let sent = 0;
    upstream.route("/v1/large", (_received, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(total) });
      const pump = (): void => {
        while (sent < total) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    });
    const received = await new Promise<number>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port: proxy.port, method: "GET", path: "/claude/v1/large" }, (res) => {
        res.pause();
        // A sandbox that reads nothing for a while: the proxy must not have drained the upstream into memory meanwhile.
        setTimeout(() => {
          try {
            // What the sockets' buffers hold (8 MiB here), not the 64 MiB a relay that never pauses reads in a second.
            expect(sent).toBeLessThan(24 * 1024 * 1024);
          } catch (error) {
            reject(error as Error);
          }
          let bytes = 0;
          res.on("data", (data: Buffer) => void (bytes += data.length));
          res.on("end", () => resolve(bytes));
          res.resume();
        }, 1000);
      });
      req.on("error", reject);
      req.end();
    });
    expect(received).toBe(total);
  });

  it("answers 404 naming the agents for an unknown route", async () => {
    const reply = await proxy.send("GET", "/nobody/v1/models");
    expect(reply.status).toBe(404);
    expect(JSON.parse(reply.body).error.message).toContain("claude");
  });

  it("answers 502 with the reason when the upstream cannot be reached", async () => {
    proxy.addAgent("down", "proxy", "anthropic", {
      provider: "anthropic",
      header: "x-api-key",
      value: "{key}",
      upstream: "https://localhost:1",
    });
    const reply = await proxy.send("GET", "/down/v1/models");
    expect(reply.status).toBe(502);
    expect(JSON.parse(reply.body).error).toMatchObject({ type: "forage_upstream" });
  });

  it("refuses an upstream on loopback that the config did not allow, before connecting", async () => {
    proxy.addAgent("loop", "proxy", "anthropic", {
      provider: "anthropic",
      header: "x-api-key",
      value: "{key}",
      upstream: `https://127.0.0.2:${upstream.port}`,
    });
    const reply = await proxy.send("GET", "/loop/v1/models");
    expect(reply.status).toBe(502);
    // The sandbox is told it failed; the address and the setting to change are the host's to read.
    expect(JSON.parse(reply.body).error.message).not.toContain("127.0.0.2");
    await proxy.services.audit.flushed();
    expect(proxy.auditRecords().at(-1)?.detail).toContain("proxy.allowUpstreams");
    expect(upstream.received).toHaveLength(0);
  });

  it("answers 503 when the key cannot be read on the host", async () => {
    proxy.addAgent("keyless", "proxy", "missing", { provider: "anthropic", header: "x-api-key", value: "{key}" });
    const reply = await proxy.send("GET", "/keyless/v1/models");
    expect(reply.status).toBe(503);
    expect(upstream.received).toHaveLength(0);
  });
});

describe("the audit log", () => {
  it("has one line per request with sandbox, agent, status and sizes, never a key, body or query", async () => {
    await proxy.send(
      "POST",
      `/holder/v1/chat?key=${placeholder}`,
      { authorization: `Bearer ${placeholder}` },
      "secret-body-text",
    );
    await proxy.services.audit.flushed();
    const record = proxy.auditRecords().at(-1);
    expect(record).toMatchObject({
      sandbox: "alpha",
      agent: "holder",
      provider: "openai",
      method: "POST",
      path: "/v1/chat",
      status: 200,
      requestBytes: 16,
      refused: null,
    });
    expect(record?.responseBytes).toBeGreaterThan(0);
    expect(JSON.stringify(record)).not.toContain(placeholder);
    const text = JSON.stringify(proxy.auditRecords());
    for (const secret of ["sk-bound-real", "sk-ant-real", "sk-openai-real", "g-real", "secret-body-text"])
      expect(text).not.toContain(secret);
  });
});

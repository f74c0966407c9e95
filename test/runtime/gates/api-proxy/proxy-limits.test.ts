import { readFileSync, renameSync, writeFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProxyAuditLog, type ProxyAuditRecord } from "../../../../runtime/gates/api-proxy/proxy-audit-log.js";
import { TestUpstream } from "../../../support/test-upstream.js";
import { ProxyFixture } from "../../../support/proxy-fixture.js";

/* Limits, filters, the audit log's rotation and key reloads, against a real HTTPS upstream on loopback. */
const upstream = new TestUpstream();
const fixtures: ProxyFixture[] = [];

async function proxyWith(limits: { requests: number; tokens: number | null; windowMs: number }): Promise<ProxyFixture> {
  const proxy = new ProxyFixture(upstream, limits);
  await proxy.setKeys({ anthropic: "sk-ant-real" });
  proxy.addAgent("claude", "proxy", "anthropic", { provider: "anthropic", header: "x-api-key", value: "{key}" });
  await proxy.start();
  fixtures.push(proxy);
  return proxy;
}

beforeAll(() => upstream.start());
afterAll(async () => {
  for (const proxy of fixtures) await proxy.stop();
  await upstream.stop();
});

describe("rate limits", () => {
  it("answers 429 naming the request limit once a sandbox is over it, and recovers when the window has passed", async () => {
    const proxy = await proxyWith({ requests: 2, tokens: null, windowMs: 1500 });
    expect((await proxy.send("GET", "/claude/v1/models")).status).toBe(200);
    expect((await proxy.send("GET", "/claude/v1/models")).status).toBe(200);
    const refused = await proxy.send("GET", "/claude/v1/models");
    expect(refused.status).toBe(429);
    expect(refused.headers["retry-after"]).toMatch(/^[12]$/);
    expect(JSON.parse(refused.body).error).toMatchObject({ type: "forage_rate-limit", limit: "requests", allowed: 2 });
    expect(upstream.received.filter((request) => request.path === "/v1/models").length).toBeGreaterThanOrEqual(2);
    await sleep(1600);
    expect((await proxy.send("GET", "/claude/v1/models")).status).toBe(200);
  });

  it("counts the tokens answers report and refuses with the token limit once they are spent", async () => {
    const proxy = await proxyWith({ requests: 100, tokens: 100, windowMs: 60_000 });
    expect((await proxy.send("POST", "/claude/v1/usage?tokens=60")).status).toBe(200);
    expect((await proxy.send("POST", "/claude/v1/usage?tokens=60")).status).toBe(200);
    const refused = await proxy.send("POST", "/claude/v1/usage?tokens=1");
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error).toMatchObject({ limit: "tokens", allowed: 100 });
    await proxy.services.audit.flushed();
    expect(proxy.auditRecords().map((record) => record.tokens)).toEqual([60, 60, 0]);
    // Usage is read from the answer, so it must come uncompressed.
    expect(upstream.received.at(-1)?.headers["accept-encoding"]).toBe("identity");
  });

  it("writes one audit line a second for a sandbox over its limit, with the count of those left out", async () => {
    const proxy = await proxyWith({ requests: 1, tokens: null, windowMs: 60_000 });
    for (let index = 0; index < 21; index += 1) await proxy.send("GET", "/nobody/here");
    await proxy.services.audit.flushed();
    const records = proxy.auditRecords();
    expect(records[0]).toMatchObject({ refused: "unknown-agent", status: 404 });
    expect(records.filter((record) => record.refused === "rate-limit")).toHaveLength(1);
    await sleep(1100);
    await proxy.send("GET", "/nobody/here");
    await proxy.services.audit.flushed();
    expect(proxy.auditRecords().at(-1)).toMatchObject({ refused: "rate-limit", suppressed: 19 });
  });

  it("keeps each sandbox's count apart", async () => {
    const proxy = await proxyWith({ requests: 1, tokens: null, windowMs: 60_000 });
    expect((await proxy.send("GET", "/claude/v1/models")).status).toBe(200);
    expect((await proxy.send("GET", "/claude/v1/models")).status).toBe(429);
    proxy.route = { ...proxy.route, sandbox: "beta" };
    expect((await proxy.send("GET", "/claude/v1/models")).status).toBe(200);
  });
});

describe("requests in flight", () => {
  it("forwards more than a shared sandbox's 8 at once while the sandbox is alone on the proxy", async () => {
    const proxy = await proxyWith({ requests: 100, tokens: null, windowMs: 60_000 });
    // The upstream answers none of them until all 12 have arrived: with 8 forwarded, none would end.
    const held: ServerResponse[] = [];
    upstream.route("/v1/held", (_received, res) => {
      held.push(res);
      if (held.length === 12) for (const each of held) each.writeHead(200).end("{}");
    });
    const replies = await Promise.all(
      Array.from({ length: 12 }, () =>
        proxy.send("POST", "/claude/v1/held", { "content-type": "application/json" }, "{}"),
      ),
    );
    expect(replies.map((reply) => reply.status)).toEqual(Array.from({ length: 12 }, () => 200));
  });
});

describe("the template's request filter", () => {
  let proxy: ProxyFixture;
  beforeAll(async () => {
    proxy = await proxyWith({ requests: 1000, tokens: null, windowMs: 60_000 });
    proxy.route = {
      ...proxy.route,
      filter: { methods: ["GET", "POST"], pathPrefixes: ["/v1/messages", "/v1/models"], maxRequestBytes: 2048 },
    };
  });

  it("answers 403 with the rule and the fix for a method not allowed", async () => {
    const reply = await proxy.send("DELETE", "/claude/v1/models/x");
    expect(reply.status).toBe(403);
    expect(JSON.parse(reply.body).error.message).toMatch(/method DELETE is not allowed.*proxyFilter\.methods/);
  });

  it("answers 403 for a path outside the prefixes, and 400 for paths an upstream could read past them", async () => {
    const count = upstream.received.length;
    const outside = await proxy.send("POST", "/claude/v1/files");
    expect(outside.status).toBe(403);
    expect(JSON.parse(outside.body).error.message).toContain("proxyFilter.pathPrefixes");
    for (const path of [
      "/v1/models/../files",
      "/v1/models/%2e%2E/files",
      "/v1/messages/..%2F..%2Ffiles",
      "/v1/models/..\\files",
      "/v1/models/..;/files",
      "/v1/models/%252e%252e/files",
    ]) {
      expect((await proxy.send("GET", `/claude${path}`)).status, path).toBe(400);
    }
    expect(upstream.received.length).toBe(count);
  });

  it("answers 413 for a body over the limit, declared or streamed", async () => {
    expect((await proxy.send("POST", "/claude/v1/messages", {}, Buffer.alloc(4096))).status).toBe(413);
    const streamed = await proxy.send(
      "POST",
      "/claude/v1/messages",
      { "transfer-encoding": "chunked" },
      Buffer.alloc(4096),
    );
    expect(streamed.status).toBe(413);
    expect((await proxy.send("POST", "/claude/v1/messages", {}, Buffer.alloc(1024))).status).toBe(200);
  });
});

describe("the audit log file", () => {
  it("rotates at its size limit, keeping three old files, losing no line", async () => {
    const proxy = fixtures[0] as ProxyFixture;
    const path = join(proxy.dir, "rotating.jsonl");
    const log = new ProxyAuditLog(path, 1000, () => undefined);
    const record: ProxyAuditRecord = {
      time: "t",
      sandbox: "s",
      agent: "a",
      provider: "p",
      method: "GET",
      path: "/",
      status: 200,
      requestBytes: 0,
      responseBytes: 0,
      durationMs: 1,
      tokens: 0,
      refused: null,
    };
    for (let index = 0; index < 40; index += 1) log.write({ ...record, status: index });
    await log.flushed();
    const files = [path, `${path}.1`, `${path}.2`, `${path}.3`].map((file) => readFileSync(file, "utf8"));
    for (const text of files) expect(text.length).toBeLessThanOrEqual(1000);
    const statuses = files.reverse().flatMap((text) =>
      text
        .trim()
        .split("\n")
        .map((line) => (JSON.parse(line) as ProxyAuditRecord).status),
    );
    expect(statuses.at(-1)).toBe(39);
    expect(statuses).toEqual([...statuses].sort((a, b) => a - b));
  });
});

describe("keys", () => {
  it("are reloaded when the secret file changes, and by reload(), without a restart", async () => {
    const proxy = await proxyWith({ requests: 1000, tokens: null, windowMs: 60_000 });
    const file = join(proxy.dir, "anthropic");
    // Written the way sops-nix and agenix do it: a new file renamed over the old.
    writeFileSync(`${file}.new`, "sk-ant-rotated\n");
    renameSync(`${file}.new`, file);
    for (let wait = 0; wait < 50 && proxy.keys.get("anthropic") !== "sk-ant-rotated"; wait += 1) await sleep(20);
    await proxy.send("GET", "/claude/v1/models");
    expect(upstream.received.at(-1)?.headers["x-api-key"]).toBe("sk-ant-rotated");
    const reloads = proxy.keys.reloads;
    await proxy.keys.reload();
    expect(proxy.keys.reloads).toBe(reloads + 1);
  });

  it("refuses a key file that is not one line of printable text (it would inject a header)", async () => {
    const proxy = await proxyWith({ requests: 1000, tokens: null, windowMs: 60_000 });
    await proxy.setKeys({ anthropic: "sk-ant\r\nx-evil: 1" });
    await proxy.keys.reload();
    expect(proxy.keys.get("anthropic")).toBeUndefined();
    expect((await proxy.send("GET", "/claude/v1/models")).status).toBe(503);
  });
});

import { request } from "node:http";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { maxDecodedBytes } from "../../../../runtime/gates/api-proxy/content-decoding.js";
import {
  askDirectly,
  leakedEncodings,
  readAnswer,
  serveHostile,
  type Answer,
} from "../../../support/hostile-upstream.js";
import { ProxyFixture } from "../../../support/proxy-fixture.js";
import { TestUpstream } from "../../../support/test-upstream.js";

/*
 * An upstream whose compressed answer does not decode, or decodes to far more than it sent. Each
 * control is the same answer read straight from the upstream, without the proxy: the key is
 * there to read (the attack is real), or the body does decode to that much.
 */
const upstream = new TestUpstream();
let proxy: ProxyFixture;
const key = "sk-ant-Broken-0123456789/+=abcdef";

beforeAll(async () => {
  await upstream.start();
  serveHostile(upstream);
  proxy = new ProxyFixture(upstream);
  await proxy.setKeys({ anthropic: key });
  proxy.addAgent("claude", "proxy", "anthropic", { provider: "anthropic", header: "x-api-key", value: "{key}" });
  await proxy.start();
});
afterAll(async () => {
  await proxy.stop();
  await upstream.stop();
});

const viaProxy = (path: string): Promise<Answer> =>
  readAnswer(request({ host: "127.0.0.1", port: proxy.port, method: "POST", path: `/claude${path}` }));
/** The unprotected path: the upstream asked directly with the key, as the proxy asks it. */
const direct = (path: string): Promise<Answer> => askDirectly(upstream, path, { "x-api-key": key });

async function lastAudit(): Promise<Record<string, unknown> | undefined> {
  await proxy.services.audit.flushed();
  return proxy.auditRecords().at(-1);
}

describe("a gzip answer that does not decode", () => {
  it.each([
    ["plain", "not gzip at all"],
    ["trailing", "the key in the clear after a whole gzip"],
  ])("cuts the answer off at the failure (%s: %s): no form of the key relayed, the proxy serving on", async (kind) => {
    const path = `/v1/hostile/echo?coding=gzip&malformed=${kind}`;
    const straight = await direct(path);
    expect(leakedEncodings(key, straight.headers, straight.bytes)).toContain("plain");
    const reply = await viaProxy(path);
    expect(reply.whole).toBe(false);
    expect(leakedEncodings(key, reply.headers, reply.bytes)).toEqual([]);
    expect(reply.bytes.toString("latin1")).not.toContain("echoes");
    expect((await lastAudit())?.detail).toMatch(/^the upstream's answer was cut off: /);
    // The proxy is still there, and reads the next compressed answer.
    const next = await viaProxy("/v1/hostile/echo?coding=gzip");
    expect(next.whole).toBe(true);
    expect(next.bytes.toString()).toContain("[forage-redacted]");
  });

  it("relays a gzip answer cut short as far as it decodes, masked (control: the upstream's bytes hold the key)", async () => {
    const path = "/v1/hostile/echo?coding=gzip&malformed=truncated";
    const straight = await direct(path);
    expect(
      leakedEncodings(key, straight.headers, Buffer.from(gunzipSync(straight.bytes, { finishFlush: 2 }))),
    ).not.toEqual([]);
    const reply = await viaProxy(path);
    expect(reply.bytes.toString()).toMatch(/^\{"error":\{"type":"invalid_request"/);
    expect(reply.bytes.toString()).toContain("[forage-redacted]");
    expect(leakedEncodings(key, reply.headers, reply.bytes)).toEqual([]);
  });
});

describe("a gzip answer that decodes to far more than was sent (a decompression bomb)", () => {
  const mib = maxDecodedBytes / (1024 * 1024) + 32;

  it("cuts the decoded answer off at the proxy's limit, the key at its end never relayed", async () => {
    const path = `/v1/hostile/bomb?coding=gzip&mib=${mib}`;
    // Control: a few hundred kilobytes that decode past the limit, the key at both ends.
    const straight = await direct(path);
    expect(straight.bytes.length).toBeLessThan(1024 * 1024);
    const decoded = gunzipSync(straight.bytes);
    expect(decoded.length).toBeGreaterThan(maxDecodedBytes);
    expect(decoded.subarray(-200).toString()).toContain(key);
    const reply = await viaProxy(path);
    expect(reply.whole).toBe(false);
    expect(reply.bytes.length).toBeLessThanOrEqual(maxDecodedBytes);
    expect(reply.bytes.subarray(0, 64).toString()).toMatch(/^\{"echo":"\[forage-redacted\]\**","zeros":"0/);
    expect(reply.bytes.includes(key)).toBe(false);
    expect((await lastAudit())?.detail).toContain(`passed ${maxDecodedBytes} bytes`);
  });

  it("control: a smaller one, under the limit, is relayed whole and masked at both ends", async () => {
    const reply = await viaProxy("/v1/hostile/bomb?coding=gzip&mib=4");
    expect(reply.whole).toBe(true);
    expect(reply.bytes.length).toBeGreaterThan(4 * 1024 * 1024);
    expect(reply.bytes.subarray(-100).toString()).toMatch(/","again":"\[forage-redacted\]\**"\}$/);
    expect(reply.bytes.includes(key)).toBe(false);
  });
});

import { request } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { askDirectly, encodedKey, leakedEncodings, serveHostile } from "../../../support/hostile-upstream.js";
import { ProxyFixture, type Reply } from "../../../support/proxy-fixture.js";
import { TestUpstream } from "../../../support/test-upstream.js";

/*
 * An upstream that answers against the proxy's wishes: compressed though asked for identity, in a
 * coding the proxy cannot read, or in a transfer coding Node leaves compressed, each reflecting
 * the key it received in every common encoding. The control of each is the same answer sent as
 * it is (an honest upstream): what the sandbox reads must be exactly that, the key masked.
 */
const upstream = new TestUpstream();
let proxy: ProxyFixture;
let hostile: { release(): void };
const key = "sk-ant-Hostile-0123456789/+=abcdef";
const last = () => upstream.received.at(-1);

beforeAll(async () => {
  await upstream.start();
  hostile = serveHostile(upstream);
  proxy = new ProxyFixture(upstream);
  await proxy.setKeys({ anthropic: key });
  proxy.addAgent("claude", "proxy", "anthropic", { provider: "anthropic", header: "x-api-key", value: "{key}" });
  await proxy.start();
});
afterAll(async () => {
  await proxy.stop();
  await upstream.stop();
});
beforeEach(() => void upstream.received.splice(0));

/** The encodings of the key an agent could read in a reply. */
const leaked = (reply: Reply): string[] => leakedEncodings(key, reply.headers, reply.bytes);

async function lastAudit(): Promise<Record<string, unknown> | undefined> {
  await proxy.services.audit.flushed();
  return proxy.auditRecords().at(-1);
}

describe("an upstream that compresses its answer though the proxy asked for identity", () => {
  it("control: the honest answer echoes every encoding of the key, and the sandbox reads none of them", async () => {
    const reply = await proxy.send("POST", "/claude/v1/hostile/echo", {}, "{}");
    expect(last()?.headers["x-api-key"]).toBe(key);
    expect(last()?.headers["accept-encoding"]).toBe("identity");
    expect(leaked(reply)).toEqual([]);
    const echoes = (JSON.parse(reply.body) as { error: { echoes: Record<string, string> } }).error.echoes;
    expect(Object.keys(echoes)).toEqual(Object.keys(encodedKey(key)));
    // Base64's edges hold bits of "user:" and of what follows too: they stay.
    for (const value of Object.values(echoes))
      expect(value).toMatch(/^[A-Za-z0-9]{0,8}\[forage-redacted\]\**[A-Za-z0-9=]{0,3}$/);
    expect(Number(reply.headers["content-length"])).toBe(reply.bytes.length);
    expect((await lastAudit())?.redacted).toBe(Object.keys(echoes).length + 2);
  });

  it.each(["gzip", "deflate,gzip,br"])(
    "control: read straight from the upstream, the %s body holds every encoding of the key",
    async (coding) => {
      const straight = await askDirectly(upstream, `/v1/hostile/echo?coding=${coding}`, { "x-api-key": key });
      expect(straight.headers["content-encoding"]).toBe(coding.replaceAll(",", ", "));
      expect(straight.bytes.includes(key)).toBe(false);
      expect(leakedEncodings(key, straight.headers, straight.bytes)).toEqual(Object.keys(encodedKey(key)));
    },
  );

  it.each(["gzip", "x-gzip", "deflate", "br", "gzip,br", "gzip,gzip", "deflate,gzip,br"])(
    "masks the key in a %s body and relays it decoded: the honest answer, byte for byte",
    async (coding) => {
      const honest = await proxy.send("POST", "/claude/v1/hostile/echo", {}, "{}");
      const honestCount = (await lastAudit())?.redacted;
      const reply = await proxy.send("POST", `/claude/v1/hostile/echo?coding=${coding}`, {}, "{}");
      expect(last()?.headers["x-api-key"]).toBe(key);
      expect(leaked(reply)).toEqual([]);
      expect(reply.status).toBe(400);
      expect(reply.headers["content-encoding"]).toBeUndefined();
      expect(reply.body).toBe(honest.body);
      expect((await lastAudit())?.redacted).toBe(honestCount);
    },
  );

  it("masks the key in a gzip transfer coding, which Node's parser leaves compressed and the header no longer says", async () => {
    const honest = await proxy.send("POST", "/claude/v1/hostile/echo", {}, "{}");
    const reply = await proxy.send("POST", "/claude/v1/hostile/echo?coding=gzip&via=transfer", {}, "{}");
    expect(leaked(reply)).toEqual([]);
    expect(reply.body).toBe(honest.body);
  });

  it("masks a key split across the flushed writes of a gzip event stream, as in the plain stream", async () => {
    const honest = await proxy.send("POST", "/claude/v1/hostile/echo?stream=1", {}, "{}");
    const reply = await proxy.send("POST", "/claude/v1/hostile/echo?stream=1&coding=gzip", {}, "{}");
    expect(leaked(honest)).toEqual([]);
    expect(leaked(reply)).toEqual([]);
    expect(reply.body).toBe(honest.body);
    expect(reply.body).toContain("[forage-redacted]");
  });

  it("relays a gzip event stream event by event: the first arrives, masked, before the second is sent", async () => {
    const received: string[] = [];
    const done = new Promise<void>((resolve, reject) => {
      const req = request(
        { host: "127.0.0.1", port: proxy.port, method: "POST", path: "/claude/v1/hostile/events?coding=gzip" },
        (res) => {
          res.on("data", (chunk: Buffer) => {
            received.push(chunk.toString());
            if (received.join("").includes("event: first") && !received.join("").includes("second")) hostile.release();
          });
          res.on("end", resolve);
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end("{}");
    });
    await done;
    const text = received.join("");
    expect(text).toMatch(
      /^event: first\ndata: \{"echo":"\[forage-redacted\]\**"\}\n\nevent: second\ndata: \{"done":true\}\n\n$/,
    );
    expect(text).not.toContain(encodedKey(key).hex);
  });

  it.each([
    ["zstd", "gzip&label=zstd"],
    ["x-custom", "x-custom"],
    ["gzip, x-foo (one coding known, one not)", "gzip&label=gzip,x-foo"],
    ["gzip four times (more codings than it undoes)", "gzip,gzip,gzip,gzip"],
  ])(
    "refuses a body labelled %s, which it cannot decode: 502 naming the rule, nothing of the body relayed",
    async (_label, query) => {
      const reply = await proxy.send("POST", `/claude/v1/hostile/echo?coding=${query}`, {}, "{}");
      expect(last()?.headers["x-api-key"]).toBe(key);
      expect(reply.status).toBe(502);
      const error = (JSON.parse(reply.body) as { error: { type: string; message: string } }).error;
      expect(error.type).toBe("forage_encoding");
      expect(error.message).toContain("cannot search for keys");
      expect(leaked(reply)).toEqual([]);
      expect((await lastAudit())?.refused).toBe("encoding");
    },
  );

  it("answers a HEAD whose answer says gzip: headers only, nothing to decode, the key masked in them", async () => {
    const reply = await proxy.send("HEAD", "/claude/v1/hostile/echo?coding=gzip");
    expect(last()?.method).toBe("HEAD");
    expect(reply.status).toBe(400);
    expect(reply.bytes).toHaveLength(0);
    expect(reply.headers["content-encoding"]).toBeUndefined();
    expect(leaked(reply)).toEqual([]);
  });

  it("counts the tokens of a compressed answer against the sandbox's limit (control: the same answer uncompressed)", async () => {
    await proxy.send("POST", "/claude/v1/hostile/usage?tokens=900", {}, "{}");
    expect((await lastAudit())?.tokens).toBe(900);
    await proxy.send("POST", "/claude/v1/hostile/usage?tokens=900&coding=gzip", {}, "{}");
    expect((await lastAudit())?.tokens).toBe(900);
  });
});

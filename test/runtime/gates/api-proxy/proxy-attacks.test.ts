import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TestUpstream } from "../../../support/test-upstream.js";
import { ProxyFixture, type Reply } from "../../../support/proxy-fixture.js";

/*
 * Attacks a sandbox can make on the proxy to get its key or to hurt other sandboxes, each with a
 * control that shows the same attempt works where the protection does not apply. A real HTTPS
 * upstream on loopback with a test CA; its `/reflect` echoes credentials like a careless API.
 */
const upstream = new TestUpstream();
let proxy: ProxyFixture;
const placeholder = `forage-placeholder-${"ef".repeat(32)}`;
const keys = {
  openai: "sk-openai-REAL-0123456789/+=",
  google: "AIza-google-REAL-0123456789",
  anthropic: "sk-ant-REAL-0123456789abcdef",
};

beforeAll(async () => {
  await upstream.start();
  proxy = new ProxyFixture(upstream);
  await proxy.setKeys(keys);
  proxy.addAgent("codex", "placeholder", "openai", {
    provider: "openai",
    header: "authorization",
    value: "Bearer {key}",
  });
  proxy.addAgent("gemini", "placeholder", "google", { provider: "google", header: "x-goog-api-key", value: "{key}" });
  proxy.addAgent("claude", "proxy", "anthropic", { provider: "anthropic", header: "x-api-key", value: "{key}" });
  const hosts = [`localhost:${upstream.port}`];
  proxy.route = {
    ...proxy.route,
    placeholders: [
      { placeholder, secret: "openai", hosts },
      { placeholder: placeholderOf("google"), secret: "google", hosts },
    ],
  };
  await proxy.start();
});
afterAll(async () => {
  await proxy.stop();
  await upstream.stop();
});
beforeEach(() => void upstream.received.splice(0));

function placeholderOf(secret: string): string {
  return `forage-placeholder-${Buffer.from(secret.padEnd(32, "-")).toString("hex")}`;
}

/** Everything a sandbox sees of a reply, as one text. */
const seenBySandbox = (reply: Reply): string => `${JSON.stringify(reply.headers)}\n${reply.body}`;
const last = () => upstream.received.at(-1);

describe("the key travels only where the provider reads it", () => {
  it("does not swap a placeholder in ?key= for OpenAI: neither the upstream nor its redirect sees the key", async () => {
    const reply = await proxy.send("GET", `/codex/v1/reflect?key=${placeholder}&a=1`, {
      authorization: `Bearer ${placeholder}`,
    });
    expect(last()?.path).toBe("/v1/reflect?a=1");
    expect(reply.headers.location).toBe("https://upstream.test/v1/reflect/?a=1");
    expect(seenBySandbox(reply)).not.toContain(keys.openai);
  });

  it("control: swaps ?key= for Google, which reads its key there", async () => {
    await proxy.send("GET", `/gemini/v1beta/models?key=${placeholderOf("google")}`);
    expect(last()?.path).toBe(`/v1beta/models?key=${encodeURIComponent(keys.google)}`);
  });

  it.each(["x-goog-api-key", "api-key", "x-api-key"])(
    "does not put the OpenAI key in %s: a placeholder there is dropped",
    async (header) => {
      await proxy.send("GET", "/codex/v1/models", { [header]: placeholder });
      expect(last()?.headers[header]).toBeUndefined();
      expect(JSON.stringify(last())).not.toContain(keys.openai);
    },
  );

  it("control: swaps the placeholder in OpenAI's own Authorization: Bearer", async () => {
    await proxy.send("GET", "/codex/v1/models", { authorization: `Bearer ${placeholder}` });
    expect(last()?.headers.authorization).toBe(`Bearer ${keys.openai}`);
  });
});

describe("a placeholder sent on another agent's route, both agents' upstreams on one host", () => {
  const refusedForeign = async (reply: Reply): Promise<void> => {
    expect(reply.status).toBe(403);
    const error = (JSON.parse(reply.body) as { error: { type: string; message: string } }).error;
    expect(error.type).toBe("forage_foreign-placeholder");
    expect(error.message).toContain("only on the routes of the agents it belongs to");
    expect(upstream.received).toEqual([]);
    expect(seenBySandbox(reply)).not.toContain(keys.google);
    expect(seenBySandbox(reply)).not.toContain(keys.openai);
    await proxy.services.audit.flushed();
    expect(proxy.auditRecords().at(-1)).toMatchObject({ refused: "foreign-placeholder", status: 403 });
  };

  it("refuses the Google agent's placeholder in the OpenAI agent's Authorization: Bearer, sending nothing upstream", async () => {
    await refusedForeign(
      await proxy.send("GET", "/codex/v1/models", { authorization: `Bearer ${placeholderOf("google")}` }),
    );
  });

  it("refuses the OpenAI agent's placeholder in the Google agent's ?key=, sending nothing upstream", async () => {
    await refusedForeign(await proxy.send("GET", `/gemini/v1beta/models?key=${placeholder}`));
  });

  it("control: each placeholder becomes its key on its own agent's route, to the same host", async () => {
    await proxy.send("GET", "/gemini/v1beta/models", { "x-goog-api-key": placeholderOf("google") });
    expect(last()?.headers["x-goog-api-key"]).toBe(keys.google);
    await proxy.send("GET", "/codex/v1/models", { authorization: `Bearer ${placeholder}` });
    expect(last()?.headers.authorization).toBe(`Bearer ${keys.openai}`);
    expect(new URL(`https://${String(last()?.headers.host)}`).port).toBe(String(upstream.port));
  });
});

describe("an upstream that reflects the key hands it to no one", () => {
  it("redacts the key from Location, Set-Cookie, custom headers, base64 and the body, and logs it", async () => {
    const reply = await proxy.send("GET", `/gemini/v1beta/reflect?key=${placeholderOf("google")}`, {
      "x-goog-api-key": placeholderOf("google"),
    });
    // Control: the upstream did get the key, and echoed what it got (the sandbox's header shows up).
    expect(last()?.headers["x-goog-api-key"]).toBe(keys.google);
    expect(reply.status).toBe(404);
    expect(reply.headers["x-echo"]).toContain("[forage-redacted]");
    expect(seenBySandbox(reply)).not.toContain(keys.google);
    expect(reply.headers["x-basic"]).not.toContain(Buffer.from(`user:${keys.google}`).toString("base64").slice(8, 24));
    expect(reply.headers["set-cookie"]).toBeUndefined();
    expect(Number(reply.headers["content-length"])).toBe(Buffer.byteLength(reply.body));
    await proxy.services.audit.flushed();
    expect(proxy.auditRecords().at(-1)?.redacted).toBeGreaterThanOrEqual(4);
  });

  it("redacts a key split across the chunks of an event stream", async () => {
    const reply = await proxy.send("POST", "/claude/v1/reflect?stream=1", {}, "{}");
    expect(last()?.headers["x-api-key"]).toBe(keys.anthropic);
    expect(reply.body).toContain("[forage-redacted]");
    expect(reply.body).toContain('"x-api-key":"[forage-redacted]');
    expect(reply.body).not.toContain(keys.anthropic);
  });

  it("control: leaves an echo of anything but a key as it was", async () => {
    const reply = await proxy.send("GET", "/claude/v1/reflect", { "x-note": "sk-not-the-key" });
    expect(reply.body).toContain("sk-not-the-key");
  });
});

describe("the token limit under concurrency", () => {
  const burst = async (tokens: number | null): Promise<number> => {
    const limited = new ProxyFixture(upstream, { requests: 1000, tokens, windowMs: 60_000 });
    await limited.setKeys({ anthropic: keys.anthropic });
    limited.addAgent("claude", "proxy", "anthropic", { provider: "anthropic", header: "x-api-key", value: "{key}" });
    await limited.start();
    try {
      const replies = await Promise.all(
        Array.from({ length: 20 }, () => limited.send("POST", "/claude/v1/usage?tokens=900&delayMs=50", {}, "{}")),
      );
      return replies.filter((reply) => reply.status === 200).length;
    } finally {
      await limited.stop();
    }
  };

  it("serves 20 concurrent requests of 900 tokens under a 1000-token limit to at most one request's overshoot", async () => {
    const served = await burst(1000);
    expect(served * 900).toBeLessThanOrEqual(1000 + 900);
    expect(served).toBeGreaterThanOrEqual(1);
  });

  it("control: without a token limit all 20 are served", async () => {
    expect(await burst(null)).toBe(20);
  });
});

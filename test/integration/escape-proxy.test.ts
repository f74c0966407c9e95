import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { leakedEncodings, serveHostile } from "../support/hostile-upstream.js";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestUpstream } from "../support/test-upstream.js";
import { TestHost } from "./harness.js";
import { onEachRuntime } from "./runtimes.js";
import { waitForProxy } from "./proxy-ready.js";

/*
 * Escape attempts on the API proxy from inside two real sandboxes, against a real HTTPS upstream
 * on the host's loopback (its own CA) that echoes credentials like a careless API. Each attempt
 * has a control that succeeds where the protection does not apply. Nothing leaves the host.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "nft", "tmux");
const keys = {
  "key-oa": "sk-escape-openai-1111/+=",
  "key-go": "AIza-escape-google-2222",
  "key-an": "sk-escape-anthropic-3333",
};
const proxyPort = 18246;

function templates(port: number, runtime: string): string {
  const node = "package: nodejs, executable: node";
  const upstream = `upstream: "https://localhost:${port}"`;
  return `  esc:
    runtime: ${runtime}
    network: none
    agents:
      codex: { ${node}, secretName: key-oa, authEnvVar: OPENAI_API_KEY, auth: placeholder, api: { provider: openai, ${upstream} } }
      gem: { ${node}, secretName: key-go, authEnvVar: GEMINI_API_KEY, auth: placeholder, api: { provider: google, ${upstream} } }
      claude: { ${node}, secretName: key-an, authEnvVar: ANTHROPIC_API_KEY, auth: proxy, api: { provider: anthropic, ${upstream} } }
`;
}

interface Reply {
  status?: number;
  headers?: Record<string, string | string[]>;
  body?: string;
  /** The body's bytes in base64. */
  bytes?: string;
  error?: string;
}

/** The encodings of `key` an agent could read in a reply (its body decompressed too). */
const leaked = (reply: Reply, key: string): string[] =>
  leakedEncodings(key, reply.headers, Buffer.from(reply.bytes ?? "", "base64"));

describe.each(onEachRuntime(tools, { nspawn: "10.246", gvisor: "10.192" }))(
  "escape attempts on the API proxy ($runtime runtime)",
  ({ runtime, prefix, runs }) => {
    if (!runs || !isRoot()) return void it.skip("needs root and the runtime's tools");
    const upstream = new TestUpstream();
    let host: TestHost;
    const last = () => upstream.received.at(-1);

    beforeAll(async () => {
      await upstream.start();
      serveHostile(upstream);
      host = new TestHost(prefix, "nobody", templates(upstream.port, runtime), "", {
        secrets: keys,
        topLevel: `proxy: { port: ${proxyPort + (runtime === "gvisor" ? 1 : 0)}, caFile: "${upstream.caFile}", allowUpstreams: ["https://localhost:${upstream.port}"], rateLimit: { requests: 1000, tokens: 1000, window: "1m" } }`,
      });
      for (const name of ["ea", "eb"]) {
        const workspace = host.workspace(name);
        copyFileSync(
          fileURLToPath(new URL("../support/api-client.mjs", import.meta.url)),
          join(workspace, "client.mjs"),
        );
        const up = await host.run(["up", name, "-t", "esc", "-w", workspace]);
        expect(up.exitCode, up.stderr).toBe(0);
      }
      await waitForProxy(host, ["ea", "eb"]);
    }, 180_000);
    afterAll(async () => {
      await host?.cleanup();
      await upstream.stop();
    });

    /** Sends `count` concurrent requests from a sandbox through an agent's launcher, as the agent. */
    const attack = async (
      sandbox: string,
      agent: string,
      baseVariable: string,
      method: string,
      path: string,
      count: number,
      ...headers: string[]
    ): Promise<Reply[]> => {
      const result = await host.run([
        "exec",
        sandbox,
        "--",
        `/opt/forage/bin/${agent}`,
        "/workspace/client.mjs",
        baseVariable,
        method,
        path,
        String(count),
        ...headers,
      ]);
      if (result.exitCode !== 0) throw new Error(`exec in ${sandbox} failed (${result.exitCode}): ${result.stderr}`);
      return JSON.parse(result.stdout) as Reply[];
    };
    const seen = (replies: Reply[]): string => JSON.stringify(replies);
    const auditPath = (): string => join(host.dir, "state/proxy-audit.jsonl");
    const auditLines = (): Record<string, unknown>[] =>
      readFileSync(auditPath(), "utf8")
        .trim()
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    /** Runs an attack and returns its replies and its audit line (the proxy writes it as the answer closes: waited for). */
    const audited = async (
      run: () => Promise<Reply[]>,
      path: string,
    ): Promise<{ replies: Reply[]; audit: Record<string, unknown> }> => {
      const before = auditLines().length;
      const replies = await run();
      for (let attempt = 0; attempt < 50; attempt += 1) {
        const line = auditLines()
          .slice(before)
          .find((record) => record.path === path);
        if (line !== undefined) return { replies, audit: line };
        await sleep(100);
      }
      throw new Error(`no audit line for ${path}`);
    };
    const marker = (length: number): string => "[forage-redacted]".padEnd(length, "*").slice(0, length);

    it("a placeholder in ?key= to OpenAI reaches no upstream as the key, and no redirect brings it back", async () => {
      const [reply] = await attack(
        "ea",
        "codex",
        "OPENAI_BASE_URL",
        "GET",
        "/reflect?key={env:OPENAI_API_KEY}",
        1,
        "authorization=Bearer {env:OPENAI_API_KEY}",
      );
      expect(reply?.status).toBe(404);
      expect(last()?.path).toBe("/v1/reflect");
      expect(seen([reply as Reply])).not.toContain(keys["key-oa"]);
      expect(seen([reply as Reply])).not.toContain(encodeURIComponent(keys["key-oa"]));
      // Control: Google's agent does get its placeholder in ?key= swapped (its API reads it there).
      await attack("ea", "gem", "GOOGLE_GEMINI_BASE_URL", "GET", "/v1beta/models?key={env:GEMINI_API_KEY}", 1);
      expect(last()?.path).toBe(`/v1beta/models?key=${keys["key-go"]}`);
    });

    it("a placeholder in another provider's key header is dropped; the provider's own is swapped", async () => {
      await attack(
        "ea",
        "codex",
        "OPENAI_BASE_URL",
        "GET",
        "/models",
        1,
        "x-goog-api-key={env:OPENAI_API_KEY}",
        "api-key={env:OPENAI_API_KEY}",
        "x-api-key={env:OPENAI_API_KEY}",
      );
      for (const header of ["x-goog-api-key", "api-key", "x-api-key"])
        expect(last()?.headers[header], header).toBeUndefined();
      expect(JSON.stringify(last())).not.toContain(keys["key-oa"]);
      // Control: the same stand-in in OpenAI's own Authorization: Bearer becomes the key.
      await attack("ea", "codex", "OPENAI_BASE_URL", "GET", "/models", 1, "authorization=Bearer {env:OPENAI_API_KEY}");
      expect(last()?.headers.authorization).toBe(`Bearer ${keys["key-oa"]}`);
    });

    it("another agent's placeholder, read from its file, is refused on the OpenAI agent's route; on its own route it becomes its key", async () => {
      const count = upstream.received.length;
      const [refused] = await attack(
        "ea",
        "codex",
        "OPENAI_BASE_URL",
        "GET",
        "/models",
        1,
        "authorization=Bearer {file:/run/secrets/key-go}",
      );
      expect(refused?.status).toBe(403);
      expect(refused?.body).toContain("forage_foreign-placeholder");
      expect(upstream.received.length).toBe(count);
      // Control: the same stand-in where it belongs, Google's header on Google's route, to the same host.
      const [swapped] = await attack(
        "ea",
        "gem",
        "GOOGLE_GEMINI_BASE_URL",
        "GET",
        "/v1beta/models",
        1,
        "x-goog-api-key={file:/run/secrets/key-go}",
      );
      expect(swapped?.status, seen([swapped as Reply])).toBe(200);
      expect(last()?.headers["x-goog-api-key"]).toBe(keys["key-go"]);
    });

    it("an upstream that echoes the key (Location, cookie, headers, base64, body) shows the sandbox none of it, the rest intact", async () => {
      const key = keys["key-an"];
      const { replies, audit } = await audited(
        () => attack("eb", "claude", "ANTHROPIC_BASE_URL", "POST", "/v1/reflect", 1),
        "/v1/reflect",
      );
      const reply = replies[0] as Reply;
      // Control: the upstream had the key and echoed it.
      expect(last()?.headers["x-api-key"]).toBe(key);
      expect(seen(replies)).not.toContain(key);
      expect(reply.status).toBe(404);
      expect(reply.headers?.["x-echo"]).toBe(marker(key.length));
      expect(reply.headers?.["set-cookie"]).toBeUndefined();
      expect(reply.headers?.location).toBe("https://upstream.test/v1/reflect/");
      expect(Number(reply.headers?.["content-length"])).toBe(Buffer.from(reply.bytes ?? "", "base64").length);
      const body = JSON.parse(reply.body ?? "") as { error: string; sent: string[]; headers: Record<string, string> };
      expect(body.error).toBe("not found: /v1/reflect");
      expect(body.sent).toEqual([marker(key.length)]);
      expect(body.headers["x-api-key"]).toBe(marker(key.length));
      // Counted: x-echo, x-basic's base64, and the body's two echoes.
      expect(audit).toMatchObject({ sandbox: "eb", agent: "claude", status: 404, redacted: 4 });
    });

    it("the same echo as an event stream, a few bytes a write, is masked across the writes, the events intact", async () => {
      const key = keys["key-an"];
      const { replies, audit } = await audited(
        () => attack("eb", "claude", "ANTHROPIC_BASE_URL", "POST", "/v1/reflect?stream=1", 1),
        "/v1/reflect",
      );
      const streamed = replies[0] as Reply;
      expect(last()?.headers["x-api-key"]).toBe(key);
      expect(seen(replies)).not.toContain(key);
      expect(streamed.body).toMatch(/^data: .*\n\n$/s);
      const event = JSON.parse((streamed.body ?? "").slice("data: ".length)) as {
        sent: string[];
        headers: Record<string, string>;
      };
      expect(event.sent).toEqual([marker(key.length)]);
      expect(event.headers["x-api-key"]).toBe(marker(key.length));
      expect(audit).toMatchObject({ sandbox: "eb", status: 404, redacted: 4 });
    });

    it("an upstream that ignores accept-encoding: identity and gzips its echo of the key in every encoding shows the sandbox none of it", async () => {
      const key = keys["key-an"];
      // Control: the honest, uncompressed answer (the same echoes), as the sandbox gets it.
      const honest = await audited(
        () => attack("eb", "claude", "ANTHROPIC_BASE_URL", "POST", "/v1/hostile/echo", 1),
        "/v1/hostile/echo",
      );
      expect(last()?.headers["accept-encoding"]).toBe("identity");
      for (const query of ["coding=gzip", "coding=gzip,br", "coding=gzip&via=transfer", "stream=1&coding=gzip"]) {
        const { replies, audit } = await audited(
          () => attack("eb", "claude", "ANTHROPIC_BASE_URL", "POST", `/v1/hostile/echo?${query}`, 1),
          "/v1/hostile/echo",
        );
        const reply = replies[0] as Reply;
        expect(last()?.headers["x-api-key"], query).toBe(key);
        expect(leaked(reply, key), query).toEqual([]);
        expect(reply.headers?.["content-encoding"], query).toBeUndefined();
        if (!query.startsWith("stream")) expect(reply.body, query).toBe(honest.replies[0]?.body);
        expect(audit.redacted, query).toBe(honest.audit.redacted);
      }
      expect(leaked(honest.replies[0] as Reply, key)).toEqual([]);
      expect(honest.audit.redacted).toBe(12);
    });

    it("a body in a coding the proxy cannot decode (zstd) is refused with 502, nothing of it relayed", async () => {
      const { replies, audit } = await audited(
        () => attack("eb", "claude", "ANTHROPIC_BASE_URL", "POST", "/v1/hostile/echo?coding=gzip&label=zstd", 1),
        "/v1/hostile/echo",
      );
      expect(last()?.headers["x-api-key"]).toBe(keys["key-an"]);
      expect(replies[0]?.status).toBe(502);
      expect(replies[0]?.body).toContain("forage_encoding");
      expect(leaked(replies[0] as Reply, keys["key-an"])).toEqual([]);
      expect(audit).toMatchObject({ refused: "encoding", status: 502 });
    });

    it("20 concurrent requests of 900 tokens under a 1000-token limit get at most one request past it", async () => {
      const replies = await attack("ea", "claude", "ANTHROPIC_BASE_URL", "POST", "/v1/usage?tokens=900&delayMs=50", 20);
      const served = replies.filter((reply) => reply.status === 200).length;
      expect(served).toBeGreaterThanOrEqual(1);
      expect(served * 900).toBeLessThanOrEqual(1000 + 900);
      expect(replies.filter((reply) => reply.status === 429)).toHaveLength(20 - served);
      // Control: the other sandbox, with its own budget, gets all 20 served when they fit in it.
      const small = await attack("eb", "claude", "ANTHROPIC_BASE_URL", "POST", "/v1/usage?tokens=10&delayMs=10", 20);
      expect(small.map((reply) => reply.status)).toEqual(Array.from({ length: 20 }, () => 200));
    });

    it("no audit line carried a key (each redaction was counted in its own line, above)", () => {
      const audit = readFileSync(auditPath(), "utf8");
      expect(auditLines().length).toBeGreaterThan(10);
      for (const key of Object.values(keys)) expect(audit).not.toContain(key);
    });
  },
);

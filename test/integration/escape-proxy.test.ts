import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRoot, toolsAvailable } from "../support/tools.js";
import { TestUpstream } from "../support/test-upstream.js";
import { TestHost } from "./harness.js";
import { waitForProxy } from "./proxy-ready.js";

/*
 * Escape attempts on the API proxy from inside two real sandboxes, against a real HTTPS upstream
 * on the host's loopback (its own CA) that echoes credentials like a careless API. Each attempt
 * has a control that succeeds where the protection does not apply. Nothing leaves the host.
 */
const tools = toolsAvailable("systemd-nspawn", "nsenter", "setpriv", "ip", "flock", "nft", "tmux");
const keys = { "key-oa": "sk-escape-openai-1111/+=", "key-go": "AIza-escape-google-2222", "key-an": "sk-escape-anthropic-3333" };
const proxyPort = 18246;

function templates(port: number): string {
  const node = "package: nodejs, executable: node";
  const upstream = `upstream: "https://localhost:${port}"`;
  return `  esc:
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
  error?: string;
}

describe.skipIf(!tools.run || !isRoot())("escape attempts on the API proxy", () => {
  const upstream = new TestUpstream();
  let host: TestHost;
  const last = () => upstream.received.at(-1);

  beforeAll(async () => {
    await upstream.start();
    host = new TestHost("10.246", "nobody", templates(upstream.port), "", {
      secrets: keys,
      topLevel: `proxy: { port: ${proxyPort}, caFile: "${upstream.caFile}", allowUpstreams: ["https://localhost:${upstream.port}"], rateLimit: { requests: 1000, tokens: 1000, window: "1m" } }`,
    });
    for (const name of ["ea", "eb"]) {
      const workspace = host.workspace(name);
      copyFileSync(fileURLToPath(new URL("../support/api-client.mjs", import.meta.url)), join(workspace, "client.mjs"));
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
  const attack = async (sandbox: string, agent: string, baseVariable: string, method: string, path: string, count: number, ...headers: string[]): Promise<Reply[]> => {
    const result = await host.run(["exec", sandbox, "--", `/opt/forage/bin/${agent}`, "/workspace/client.mjs", baseVariable, method, path, String(count), ...headers]);
    if (result.exitCode !== 0) throw new Error(`exec in ${sandbox} failed (${result.exitCode}): ${result.stderr}`);
    return JSON.parse(result.stdout) as Reply[];
  };
  const seen = (replies: Reply[]): string => JSON.stringify(replies);

  it("a placeholder in ?key= to OpenAI reaches no upstream as the key, and no redirect brings it back", async () => {
    const [reply] = await attack("ea", "codex", "OPENAI_BASE_URL", "GET", "/reflect?key={env:OPENAI_API_KEY}", 1, "authorization=Bearer {env:OPENAI_API_KEY}");
    expect(reply?.status).toBe(404);
    expect(last()?.path).toBe("/v1/reflect");
    expect(seen([reply as Reply])).not.toContain(keys["key-oa"]);
    expect(seen([reply as Reply])).not.toContain(encodeURIComponent(keys["key-oa"]));
    // Control: Google's agent does get its placeholder in ?key= swapped (its API reads it there).
    await attack("ea", "gem", "GOOGLE_GEMINI_BASE_URL", "GET", "/v1beta/models?key={env:GEMINI_API_KEY}", 1);
    expect(last()?.path).toBe(`/v1beta/models?key=${keys["key-go"]}`);
  });

  it("a placeholder in another provider's key header is dropped; the provider's own is swapped", async () => {
    await attack("ea", "codex", "OPENAI_BASE_URL", "GET", "/models", 1, "x-goog-api-key={env:OPENAI_API_KEY}", "api-key={env:OPENAI_API_KEY}", "x-api-key={env:OPENAI_API_KEY}");
    for (const header of ["x-goog-api-key", "api-key", "x-api-key"]) expect(last()?.headers[header], header).toBeUndefined();
    expect(JSON.stringify(last())).not.toContain(keys["key-oa"]);
    // Control: the same stand-in in OpenAI's own Authorization: Bearer becomes the key.
    await attack("ea", "codex", "OPENAI_BASE_URL", "GET", "/models", 1, "authorization=Bearer {env:OPENAI_API_KEY}");
    expect(last()?.headers.authorization).toBe(`Bearer ${keys["key-oa"]}`);
  });

  it("an upstream that echoes the key (Location, cookie, headers, base64, body) shows the sandbox none of it", async () => {
    const [reply] = await attack("eb", "claude", "ANTHROPIC_BASE_URL", "POST", "/v1/reflect", 1);
    // Control: the upstream had the key and echoed it.
    expect(last()?.headers["x-api-key"]).toBe(keys["key-an"]);
    expect(reply?.headers?.["x-echo"]).toContain("[forage-redacted]");
    expect(seen([reply as Reply])).not.toContain(keys["key-an"]);
    const [streamed] = await attack("eb", "claude", "ANTHROPIC_BASE_URL", "POST", "/v1/reflect?stream=1", 1);
    expect(streamed?.body).toContain("[forage-redacted]");
    expect(seen([streamed as Reply])).not.toContain(keys["key-an"]);
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

  it("no reply or audit line carried a key", () => {
    const audit = readFileSync(join(host.dir, "state/proxy-audit.jsonl"), "utf8");
    expect(audit).toMatch(/"redacted":\d+/);
    for (const key of Object.values(keys)) expect(audit).not.toContain(key);
  });
});

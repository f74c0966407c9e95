import { readFileSync, statSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LoginFlavor } from "../../../generator/config/agent-logins.js";
import { loginPath, readLogin, storeLogin } from "../../../runtime/logins/login-store.js";
import type { LoginRecord } from "../../../runtime/logins/login-record.js";
import { ProxyFixture } from "../../support/proxy-fixture.js";
import { TestLoginProvider } from "../../support/test-login-provider.js";
import { TestUpstream } from "../../support/test-upstream.js";

/*
 * Subscription logins through the real proxy handler, against a real HTTPS token endpoint and API
 * on loopback that behave like the agents' providers (test-login-provider.ts): the sandbox sends
 * stand-ins, the host's login reaches the API, expired tokens are refreshed on the host, once.
 */
const upstream = new TestUpstream();
let proxy: ProxyFixture;
const providers = {} as Record<LoginFlavor, TestLoginProvider>;
const origin = (): string => `https://localhost:${upstream.port}`;

beforeAll(async () => {
  await upstream.start();
  proxy = new ProxyFixture(upstream);
  for (const flavor of ["claude", "codex", "gemini"] as const) {
    providers[flavor] = new TestLoginProvider(flavor, upstream, `/${flavor}`);
    const provider = { claude: "anthropic", codex: "openai", gemini: "google" } as const;
    proxy.addLoginAgent(
      flavor,
      { flavor, kind: "oauth", tokenUrl: `${origin()}/${flavor}/oauth/token` },
      { provider: provider[flavor], upstream: `${origin()}/${flavor}/api` },
    );
  }
  proxy.addLoginAgent(
    "setup",
    { flavor: "claude", kind: "token", tokenUrl: `${origin()}/claude/oauth/token` },
    { provider: "anthropic", upstream: `${origin()}/claude/api` },
  );
  await proxy.start();
});
afterAll(async () => {
  await proxy.stop();
  await upstream.stop();
});

/** Stores an oauth login for `agent` as `forage-ctl auth set` would, from tokens the provider issued. */
async function storeOAuth(
  agent: LoginFlavor,
  tokens: { accessToken: string; refreshToken: string; expiresAt: number | null },
): Promise<void> {
  const record: LoginRecord = {
    kind: "oauth",
    flavor: agent,
    ...tokens,
    accountId: agent === "codex" ? providers.codex.accountId : null,
    idClaims: null,
    scopes: [],
    subscriptionType: null,
    setAt: new Date().toISOString(),
    refreshedAt: null,
  };
  await storeLogin(proxy.paths, "dev", agent, record);
}

const standIns = { authorization: "Bearer forage-login-stand-in", "x-api-key": "sk-ant-stand-in" };

describe("an oauth login kept on the host", () => {
  it("reaches the API with the host's access token, never the sandbox's stand-in", async () => {
    const tokens = providers.claude.issue();
    await storeOAuth("claude", tokens);
    const reply = await proxy.send(
      "POST",
      "/claude/v1/messages",
      { ...standIns, "anthropic-beta": "fine-grained-tool-streaming-2025-05-14" },
      "{}",
    );
    expect(reply.status).toBe(200);
    const received = upstream.requestsTo("/claude/api").at(-1);
    expect(received?.headers.authorization).toBe(`Bearer ${tokens.accessToken}`);
    expect(received?.headers["x-api-key"]).toBeUndefined();
    // Claude's own flags are kept, and the OAuth beta its login needs is added.
    expect(received?.headers["anthropic-beta"]).toBe("fine-grained-tool-streaming-2025-05-14,oauth-2025-04-20");
  });

  it("is refreshed on the host when its access token has expired, and the new tokens are stored", async () => {
    const expired = providers.claude.issue(-1000);
    await storeOAuth("claude", expired);
    const before = providers.claude.refreshes;
    const reply = await proxy.send("POST", "/claude/v1/messages", standIns, "{}");
    expect(reply.status).toBe(200);
    expect(providers.claude.refreshes).toBe(before + 1);
    const stored = await readLogin(proxy.paths, "dev", "claude");
    expect(stored?.kind === "oauth" && stored.refreshToken).not.toBe(expired.refreshToken);
    expect(stored?.kind === "oauth" && stored.expiresAt).toBeGreaterThan(Date.now() + 3000_000);
    // The sandbox never sees a real token, new or old.
    expect(reply.body).not.toContain("rt-claude");
    expect(upstream.requestsTo("/claude/api").at(-1)?.headers.authorization).toBe(
      `Bearer ${stored?.kind === "oauth" ? stored.accessToken : ""}`,
    );
  });

  it("is refreshed once however many requests need it at the same time", async () => {
    await storeOAuth("claude", providers.claude.issue(60_000)); // within the five-minute margin
    const before = providers.claude.refreshes;
    const replies = await Promise.all(
      Array.from({ length: 8 }, () => proxy.send("POST", "/claude/v1/messages", standIns, "{}")),
    );
    expect(replies.map((reply) => reply.status)).toEqual(Array(8).fill(200));
    expect(providers.claude.refreshes).toBe(before + 1);
  });

  it("gives Codex its ChatGPT account and reads the expiry from the access token", async () => {
    await storeOAuth("codex", { ...providers.codex.issue(-1000), expiresAt: null });
    const reply = await proxy.send(
      "POST",
      "/codex/responses",
      { authorization: "Bearer stand-in", "chatgpt-account-id": "someone-else" },
      "{}",
    );
    expect(reply.status).toBe(200);
    expect(upstream.requestsTo("/codex/api").at(-1)?.headers["chatgpt-account-id"]).toBe(providers.codex.accountId);
    const stored = await readLogin(proxy.paths, "dev", "codex");
    expect(stored?.kind === "oauth" && stored.idClaims?.email).toBe("dev@example.test");
  });

  it("refreshes Gemini's Google login with a form and keeps its refresh token", async () => {
    const tokens = providers.gemini.issue(-1000);
    await storeOAuth("gemini", tokens);
    const reply = await proxy.send(
      "POST",
      "/gemini/v1internal:generateContent",
      { authorization: "Bearer stand-in" },
      "{}",
    );
    expect(reply.status).toBe(200);
    const stored = await readLogin(proxy.paths, "dev", "gemini");
    expect(stored?.kind === "oauth" && stored.refreshToken).toBe(tokens.refreshToken);
  });

  it("says the login has expired (503, not 401: the agent must not try to log in itself) when the refresh is refused", async () => {
    await storeOAuth("claude", { accessToken: "at-unknown", refreshToken: "rt-revoked", expiresAt: Date.now() - 1000 });
    const reply = await proxy.send("POST", "/claude/v1/messages", standIns, "{}");
    expect(reply.status).toBe(503);
    expect(reply.body).toMatch(/login of agent \\"claude\\" has expired.*invalid_grant.*forage-ctl auth set/);
    expect(reply.body).not.toContain("rt-revoked");
  });

  it("keeps the store root's alone", () => {
    const file = loginPath(proxy.paths, "dev", "claude");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(`${proxy.paths.loginsDir}/dev`).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(file, "utf8")).kind).toBe("oauth");
  });
});

describe("a setup token kept on the host", () => {
  it("is sent as Claude Code sends it: Bearer with the OAuth beta, no x-api-key", async () => {
    const { accessToken } = providers.claude.issue();
    await storeLogin(proxy.paths, "dev", "setup", {
      kind: "token",
      flavor: "claude",
      token: accessToken,
      setAt: new Date().toISOString(),
      expiresAt: null,
    });
    const reply = await proxy.send("POST", "/setup/v1/messages", standIns, "{}");
    expect(reply.status).toBe(200);
    const received = upstream.requestsTo("/claude/api").at(-1);
    expect(received?.headers.authorization).toBe(`Bearer ${accessToken}`);
    expect(received?.headers["anthropic-beta"]).toBe("oauth-2025-04-20");
  });

  it("is refused with the command that stores it when none is stored", async () => {
    const reply = await proxy.send("POST", "/gemini-none/x", standIns);
    expect(reply.status).toBe(404);
    proxy.addLoginAgent(
      "nobody",
      { flavor: "claude", kind: "token", tokenUrl: `${origin()}/claude/oauth/token` },
      { provider: "anthropic", upstream: `${origin()}/claude/api` },
    );
    const missing = await proxy.send("POST", "/nobody/v1/messages", standIns, "{}");
    expect(missing.status).toBe(503);
    expect(missing.body).toContain("forage-ctl auth set nobody");
  });
});

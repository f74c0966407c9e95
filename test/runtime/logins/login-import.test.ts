import { describe, expect, it } from "vitest";
import { jwtClaims, unsignedJwt } from "../../../runtime/logins/jwt-claims.js";
import { parseLogin } from "../../../runtime/logins/login-import.js";
import { standInFiles } from "../../../runtime/logins/stand-in-files.js";

/** What `forage-ctl auth set` accepts on stdin, and the stand-ins a sandbox gets for it. */
const now = new Date("2026-11-26T00:00:00.000Z");
const claude = { agent: "claude", flavor: "claude" as const, kinds: ["token", "oauth"] as const };

describe("a login read from stdin", () => {
  it("takes Claude's setup token as one line, with the year it lasts", () => {
    const record = parseLogin({ ...claude, kinds: ["token"] }, "  sk-ant-oat01-abc_DEF-123\n\n", now);
    expect(record).toEqual({
      kind: "token",
      flavor: "claude",
      token: "sk-ant-oat01-abc_DEF-123",
      setAt: now.toISOString(),
      expiresAt: "2027-11-26T00:00:00.000Z",
    });
  });

  it("takes Claude's credentials file with its tokens, expiry, scopes and plan", () => {
    const file = {
      claudeAiOauth: {
        accessToken: "at-1",
        refreshToken: "rt-1",
        expiresAt: 1_800_000_000_000,
        scopes: ["user:inference", "user:profile"],
        subscriptionType: "max",
      },
    };
    expect(parseLogin(claude, JSON.stringify(file), now)).toMatchObject({
      kind: "oauth",
      accessToken: "at-1",
      refreshToken: "rt-1",
      expiresAt: 1_800_000_000_000,
      scopes: ["user:inference", "user:profile"],
      subscriptionType: "max",
    });
  });

  it("takes Codex's auth.json, reading the expiry from the access token and the claims from the identity token", () => {
    const access = unsignedJwt({ exp: 1_800_000_000 });
    const identity = unsignedJwt({
      email: "dev@example.org",
      "https://api.openai.com/auth": { chatgpt_plan_type: "pro" },
    });
    const file = {
      auth_mode: "chatgpt",
      OPENAI_API_KEY: null,
      tokens: { id_token: identity, access_token: access, refresh_token: "rt-c", account_id: "acct-9" },
      last_refresh: now.toISOString(),
    };
    const record = parseLogin({ agent: "codex", flavor: "codex", kinds: ["oauth"] }, JSON.stringify(file), now);
    expect(record).toMatchObject({
      kind: "oauth",
      expiresAt: 1_800_000_000_000,
      accountId: "acct-9",
      idClaims: { email: "dev@example.org" },
    });
  });

  it("takes Gemini CLI's oauth_creds.json", () => {
    const file = {
      access_token: "ya29.x",
      refresh_token: "1//r",
      expiry_date: 1_800_000_000_000,
      scope: "openid https://www.googleapis.com/auth/cloud-platform",
      token_type: "Bearer",
    };
    expect(
      parseLogin({ agent: "gemini", flavor: "gemini", kinds: ["oauth"] }, JSON.stringify(file), now),
    ).toMatchObject({
      accessToken: "ya29.x",
      refreshToken: "1//r",
      scopes: ["openid", "https://www.googleapis.com/auth/cloud-platform"],
    });
  });

  it.each([
    ["nothing", "\n", "nothing on stdin"],
    ["two words", "sk-ant-oat01-a sk-ant-oat01-b", "one line without spaces"],
    ["an API key", "sk-ant-api03-secretvalue", "that is an Anthropic API key"],
    ["broken JSON", "{ not json", "starts like JSON but is not"],
    [
      "another program's file",
      JSON.stringify({ tokens: { access_token: "a", refresh_token: "r" } }),
      "is not claude's login file",
    ],
    ["a control character", "sk-ant-oat01-\u0007bell", "printable ASCII"],
  ])("refuses %s and never quotes it back", (_case, text, message) => {
    expect(() => parseLogin(claude, text, now)).toThrow(message);
    try {
      parseLogin(claude, text, now);
    } catch (error) {
      expect((error as Error).message).not.toContain("secretvalue");
      expect((error as Error).message).not.toContain("bell");
    }
  });

  it("refuses a kind the agent's templates do not use, saying what to pipe", () => {
    expect(() => parseLogin({ ...claude, kinds: ["oauth"] }, "sk-ant-oat01-x", now)).toThrow(
      "pipe the contents of ~/.claude/.credentials.json",
    );
  });
});

describe("the stand-in files a sandbox gets", () => {
  const oauth = parseLogin(
    claude,
    JSON.stringify({
      claudeAiOauth: {
        accessToken: "at-real",
        refreshToken: "rt-real",
        expiresAt: 1,
        scopes: ["user:inference"],
        subscriptionType: "pro",
      },
    }),
    now,
  );

  it("keep the plan and scopes, never the tokens, and never expire as far as the agent can tell", () => {
    const files = standInFiles("claude", oauth, now.getTime());
    expect(Object.keys(files).sort()).toEqual([".claude.json", ".claude/.credentials.json"]);
    const text = JSON.stringify(files);
    expect(text).not.toContain("at-real");
    expect(text).not.toContain("rt-real");
    const login = JSON.parse(files[".claude/.credentials.json"] ?? "{}").claudeAiOauth;
    expect(login).toMatchObject({
      scopes: ["user:inference"],
      subscriptionType: "pro",
      accessToken: expect.stringMatching(/^forage-login-stand-in-/),
    });
    expect(login.expiresAt).toBeGreaterThan(now.getTime() + 9 * 365 * 24 * 3600_000);
  });

  it("give Codex an identity token it can read but no server accepts, with the login's claims", () => {
    const codex = parseLogin(
      { agent: "codex", flavor: "codex", kinds: ["oauth"] },
      JSON.stringify({
        tokens: { access_token: "a", refresh_token: "r", id_token: unsignedJwt({ email: "e@x" }), account_id: "acct" },
      }),
      now,
    );
    const auth = JSON.parse(standInFiles("codex", codex, now.getTime())[".codex/auth.json"] ?? "{}");
    expect(auth.tokens.account_id).toBe("acct");
    expect(jwtClaims(auth.tokens.id_token)).toMatchObject({ email: "e@x" });
    expect(auth.tokens.id_token.endsWith(".forage-stand-in")).toBe(true);
  });
});

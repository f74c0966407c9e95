import { randomBytes } from "node:crypto";
import type { LoginFlavor } from "../../generator/config/agent-logins.js";
import { unsignedJwt } from "./jwt-claims.js";
import type { LoginRecord } from "./login-record.js";

/** A stand-in token: no server accepts it, and it says what it is when it turns up in a log. */
export function standInToken(): string {
  return `forage-login-stand-in-${randomBytes(16).toString("hex")}`;
}

/**
 * The stand-ins never expire as far as the agent can tell (the host refreshes the real token), so
 * it never tries a refresh of its own: ten years from now.
 */
const farFuture = (now: number): number => now + 10 * 365 * 24 * 3600 * 1000;

/**
 * Files under the agent's home that make it start logged in, path (relative to the home) → text:
 * its login file with stand-in tokens (oauth), and the marks of a finished first run that a
 * fresh home lacks. Nothing here is a credential.
 */
export function standInFiles(flavor: LoginFlavor, record: LoginRecord, now: number): Record<string, string> {
  const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
  // Claude Code asks a fresh home to log in and pick a theme unless onboarding is marked done.
  const files: Record<string, string> =
    flavor === "claude" ? { ".claude.json": json({ hasCompletedOnboarding: true }) } : {};
  if (record.kind !== "oauth") return files;
  const standIns = { access: standInToken(), refresh: standInToken() };
  if (flavor === "claude") {
    files[".claude/.credentials.json"] = json({
      claudeAiOauth: {
        accessToken: standIns.access,
        refreshToken: standIns.refresh,
        expiresAt: farFuture(now),
        scopes: record.scopes,
        subscriptionType: record.subscriptionType,
      },
    });
  } else if (flavor === "codex") {
    // Codex reads the plan and e-mail from the identity token's claims; it never checks the signature.
    const idToken = unsignedJwt({ ...(record.idClaims ?? {}), exp: Math.floor(farFuture(now) / 1000) });
    files[".codex/auth.json"] = json({
      auth_mode: "chatgpt",
      OPENAI_API_KEY: null,
      tokens: {
        id_token: idToken,
        access_token: standIns.access,
        refresh_token: standIns.refresh,
        account_id: record.accountId,
      },
      last_refresh: new Date(now).toISOString(),
    });
  } else {
    files[".gemini/oauth_creds.json"] = json({
      access_token: standIns.access,
      refresh_token: standIns.refresh,
      token_type: "Bearer",
      expiry_date: farFuture(now),
      scope: record.scopes.join(" "),
    });
    files[".gemini/settings.json"] = json({ security: { auth: { selectedType: "oauth-personal" } } });
  }
  return files;
}

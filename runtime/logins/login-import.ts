import type { LoginFlavor, LoginKind } from "../../generator/config/agent-logins.js";
import { SandboxError } from "../core/errors.js";
import { jwtClaims, jwtExpiry } from "./jwt-claims.js";
import { loginRecord, type LoginRecord } from "./login-record.js";
import { issueList } from "../../generator/lib/issue-list.js";

/** What a login read from stdin is for: whose program, and the kinds its templates use. */
export interface LoginTarget {
  agent: string;
  flavor: LoginFlavor;
  kinds: readonly LoginKind[];
}

/** Where each program keeps its login, for messages. */
const loginFiles: Record<LoginFlavor, string> = {
  claude: "~/.claude/.credentials.json",
  codex: "~/.codex/auth.json",
  gemini: "~/.gemini/oauth_creds.json",
};

/** A setup token lasts about a year (Claude Code's documentation); the exact end is not in the token. */
const setupTokenLifetimeMs = 365 * 24 * 3600 * 1000;

const refused = (message: string): SandboxError => new SandboxError(message, "usage");

/**
 * Reads what `forage-ctl auth set AGENT` got on stdin: a token line, or the agent's own login
 * file (JSON). Refuses what the agent's templates do not use and anything malformed, naming what
 * was expected; the value itself is never quoted back.
 *
 * @example parseLogin({ agent: "claude", flavor: "claude", kinds: ["token"] }, "sk-ant-oat01-…\n", now)
 */
export function parseLogin(target: LoginTarget, text: string, now: Date): LoginRecord {
  const trimmed = text.trim();
  if (trimmed === "")
    throw refused(`nothing on stdin: pipe ${describeInput(target)} into forage-ctl auth set ${target.agent}`);
  const kind: LoginKind = trimmed.startsWith("{") ? "oauth" : "token";
  if (!target.kinds.includes(kind)) {
    throw refused(
      `agent "${target.agent}" uses a ${target.kinds.join(" or ")} login in its templates, but stdin holds ${kind === "oauth" ? "a login file" : "a token"}: pipe ${describeInput(target)}`,
    );
  }
  const record = kind === "token" ? tokenRecord(target, trimmed, now) : oauthRecord(target, trimmed, now);
  const parsed = loginRecord.safeParse(record);
  if (!parsed.success) {
    throw refused(`the login on stdin is not usable: ${issueList(parsed.error.issues)}`);
  }
  return parsed.data;
}

function describeInput(target: LoginTarget): string {
  const token = target.flavor === "claude" ? "the token `claude setup-token` prints" : undefined;
  const file = `the contents of ${loginFiles[target.flavor]} (after logging in on the host)`;
  if (target.kinds.includes("token") && target.kinds.includes("oauth")) return `${token ?? "a token"} or ${file}`;
  return target.kinds.includes("token") ? (token ?? "a token") : file;
}

function tokenRecord(target: LoginTarget, token: string, now: Date): unknown {
  if (/\s/.test(token)) throw refused("a token is one line without spaces: stdin holds more than one word");
  // An API key belongs in `secrets`: it goes by x-api-key, not as a login.
  if (/^sk-ant-api/.test(token))
    throw refused(
      `that is an Anthropic API key, not a login token: put it in a secret file and give agent "${target.agent}" secretName and authEnvVar`,
    );
  return {
    kind: "token",
    flavor: target.flavor,
    token,
    setAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + setupTokenLifetimeMs).toISOString(),
  };
}

function oauthRecord(target: LoginTarget, text: string, now: Date): unknown {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw refused(`stdin starts like JSON but is not: pipe the whole of ${loginFiles[target.flavor]}`);
  }
  const fields = { claude: claudeFields, codex: codexFields, gemini: geminiFields }[target.flavor](json);
  if (fields === undefined)
    throw refused(
      `stdin is not ${target.flavor}'s login file (${loginFiles[target.flavor]}): it lacks the access and refresh tokens`,
    );
  return {
    kind: "oauth",
    flavor: target.flavor,
    accountId: null,
    idClaims: null,
    scopes: [],
    subscriptionType: null,
    ...fields,
    setAt: now.toISOString(),
    refreshedAt: null,
  };
}

type Fields = Record<string, unknown>;
const objectAt = (value: unknown, key: string): Fields | undefined => {
  const inner = typeof value === "object" && value !== null ? (value as Fields)[key] : undefined;
  return typeof inner === "object" && inner !== null && !Array.isArray(inner) ? (inner as Fields) : undefined;
};
const stringOr = (value: unknown): string | null => (typeof value === "string" ? value : null);

/** `{ claudeAiOauth: { accessToken, refreshToken, expiresAt (ms), scopes, subscriptionType } }`. */
function claudeFields(json: unknown): Fields | undefined {
  const login = objectAt(json, "claudeAiOauth");
  if (typeof login?.accessToken !== "string" || typeof login.refreshToken !== "string") return undefined;
  return {
    accessToken: login.accessToken,
    refreshToken: login.refreshToken,
    expiresAt: typeof login.expiresAt === "number" ? login.expiresAt : null,
    scopes: Array.isArray(login.scopes) ? login.scopes.filter((scope) => typeof scope === "string") : [],
    subscriptionType: stringOr(login.subscriptionType),
  };
}

/** `{ auth_mode, tokens: { id_token, access_token, refresh_token, account_id }, last_refresh }`. */
function codexFields(json: unknown): Fields | undefined {
  const tokens = objectAt(json, "tokens");
  if (typeof tokens?.access_token !== "string" || typeof tokens.refresh_token !== "string") return undefined;
  const idToken = stringOr(tokens.id_token);
  return {
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
    expiresAt: jwtExpiry(tokens.access_token),
    accountId: stringOr(tokens.account_id),
    idClaims: idToken === null ? null : (jwtClaims(idToken) ?? null),
  };
}

/** `{ access_token, refresh_token, expiry_date (ms), scope, token_type }` (google-auth-library's shape). */
function geminiFields(json: unknown): Fields | undefined {
  if (typeof json !== "object" || json === null) return undefined;
  const login = json as Fields;
  if (typeof login.access_token !== "string" || typeof login.refresh_token !== "string") return undefined;
  return {
    accessToken: login.access_token,
    refreshToken: login.refresh_token,
    expiresAt: typeof login.expiry_date === "number" ? login.expiry_date : null,
    scopes: typeof login.scope === "string" ? login.scope.split(" ").filter((scope) => scope !== "") : [],
  };
}

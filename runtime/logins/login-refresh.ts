import type { LoginFlavor } from "../../generator/config/agent-logins.js";
import { jwtClaims, jwtExpiry } from "./jwt-claims.js";
import { tokenValue, type OAuthLogin } from "./login-record.js";

/** A token endpoint's answer: its status and its body. */
export interface TokenAnswer {
  status: number;
  body: string;
}

/** Sends a refresh request: an https POST of `body` with `contentType` to `url`. */
export type PostToken = (url: string, contentType: string, body: string) => Promise<TokenAnswer>;

/** A refresh the token endpoint refused or answered with nonsense; says which, never a token. */
export class LoginRefreshError extends Error {
  override name = "LoginRefreshError";
  constructor(
    message: string,
    /** True when the endpoint refused the refresh token itself: the user must log in again. */
    readonly loginExpired: boolean,
  ) {
    super(message);
  }
}

/*
 * The agents' own public OAuth clients (published in their sources; installed-app clients hold no
 * secret in the OAuth sense, RFC 8252 §8.5): a refresh must name the client the login was made with.
 */
const clientIds: Record<LoginFlavor, string> = {
  claude: "9d1c250a-e61b-44d9-88ed-5944d1962f5e",
  codex: "app_EMoamEEZ73f0CkXaXp7hrann",
  gemini: "681255809395-oo8ft2oprdrnp9e3aqf6av3hmdib135j.apps.googleusercontent.com",
};
const geminiClientSecret = "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";

/** Without an expiry in the answer or the token, a refreshed token is used for this long. */
const assumedLifetimeMs = 50 * 60 * 1000;

/** The refresh request each program sends: Claude and Codex post JSON, Google a form. */
function refreshRequest(login: OAuthLogin): { contentType: string; body: string } {
  if (login.flavor === "gemini") {
    const form = new URLSearchParams({
      client_id: clientIds.gemini,
      client_secret: geminiClientSecret,
      refresh_token: login.refreshToken,
      grant_type: "refresh_token",
    });
    return { contentType: "application/x-www-form-urlencoded", body: form.toString() };
  }
  const fields: Record<string, string> = {
    grant_type: "refresh_token",
    refresh_token: login.refreshToken,
    client_id: clientIds[login.flavor],
  };
  if (login.flavor === "codex") fields.scope = "openid profile email";
  return { contentType: "application/json", body: JSON.stringify(fields) };
}

/**
 * Refreshes an oauth login at its token endpoint and returns the login with the new tokens (a
 * refresh token is replaced when the endpoint sends a new one: Codex's are single-use).
 */
export async function refreshLogin(
  login: OAuthLogin,
  tokenUrl: string,
  post: PostToken,
  now: () => number,
): Promise<OAuthLogin> {
  const request = refreshRequest(login);
  const answer = await post(tokenUrl, request.contentType, request.body);
  if (answer.status === 400 || answer.status === 401) {
    throw new LoginRefreshError(
      `${new URL(tokenUrl).host} refused the refresh (HTTP ${answer.status}${oauthError(answer.body)}): log in again on the host and run forage-ctl auth set`,
      true,
    );
  }
  if (answer.status !== 200)
    throw new LoginRefreshError(
      `${new URL(tokenUrl).host} answered the refresh with HTTP ${answer.status}; it is retried on the next request`,
      false,
    );
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(answer.body) as Record<string, unknown>;
  } catch {
    throw new LoginRefreshError(
      `${new URL(tokenUrl).host} answered the refresh with something that is not JSON`,
      false,
    );
  }
  const access = tokenValue.safeParse(json.access_token);
  if (!access.success)
    throw new LoginRefreshError(`${new URL(tokenUrl).host}'s answer has no usable access_token`, false);
  const refresh = tokenValue.safeParse(json.refresh_token);
  const expiresIn = typeof json.expires_in === "number" && json.expires_in > 0 ? json.expires_in * 1000 : null;
  const idToken = typeof json.id_token === "string" ? json.id_token : undefined;
  return {
    ...login,
    accessToken: access.data,
    refreshToken: refresh.success ? refresh.data : login.refreshToken,
    expiresAt: now() + (expiresIn ?? (jwtExpiry(access.data) ?? now() + assumedLifetimeMs) - now()),
    idClaims:
      idToken === undefined || login.flavor !== "codex" ? login.idClaims : (jwtClaims(idToken) ?? login.idClaims),
    refreshedAt: new Date(now()).toISOString(),
  };
}

/** The OAuth error code of an error answer (`invalid_grant`), never its description (which may quote input). */
function oauthError(body: string): string {
  try {
    const code = (JSON.parse(body) as { error?: unknown }).error;
    return typeof code === "string" && /^[a-z_]{1,64}$/.test(code) ? `: ${code}` : "";
  } catch {
    return "";
  }
}

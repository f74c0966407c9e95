import type { ServerResponse } from "node:http";
import type { LoginFlavor } from "../../generator/config/agent-logins.js";
import { unsignedJwt } from "../../runtime/logins/jwt-claims.js";
import type { ReceivedRequest, TestUpstream } from "./test-upstream.js";

/*
 * A subscription login's provider as the agents meet it, on a real HTTPS test server: a token
 * endpoint and an API, written from the agents' published behaviour (see the README's
 * "Subscription logins"):
 * - the token endpoint takes grant_type=refresh_token with the program's client id, as JSON
 *   (Claude, Codex) or a form (Google, with its client secret); it answers access_token,
 *   expires_in and (Claude, Codex) a new refresh token, the old one then refused (single use);
 *   Codex's access token is a JWT whose `exp` is its expiry;
 * - the API answers 401 unless the request carries a current access token as Bearer, no
 *   x-api-key, and what the program itself sends: Claude the `oauth-2025-04-20` beta, Codex the
 *   `chatgpt-account-id` of the login.
 */
const clientIds: Record<LoginFlavor, string> = {
  claude: "9d1c250a-e61b-44d9-88ed-5944d1962f5e",
  codex: "app_EMoamEEZ73f0CkXaXp7hrann",
  gemini: "681255809395-oo8ft2oprdrnp9e3aqf6av3hmdib135j.apps.googleusercontent.com",
};

export class TestLoginProvider {
  /** Access token → when it expires (ms). */
  private readonly access = new Map<string, number>();
  private readonly refresh = new Set<string>();
  private issued = 0;
  /** Refresh requests received (the tokens never repeated here). */
  refreshes = 0;
  /** How long the tokens it issues live. */
  lifetimeMs = 3600_000;
  readonly accountId = "acct-test-1";

  constructor(
    readonly flavor: LoginFlavor,
    upstream: TestUpstream,
    /** Where its token endpoint and API live on the test server. */
    readonly prefix: string,
  ) {
    upstream.route(`${prefix}/oauth/token`, (received, res) => this.token(received, res));
    upstream.route(`${prefix}/api`, (received, res) => this.api(received, res));
  }

  /** A login as the program's own login would leave it: a valid access token and a refresh token. */
  issue(expiresInMs = this.lifetimeMs): { accessToken: string; refreshToken: string; expiresAt: number } {
    this.issued += 1;
    const expiresAt = Date.now() + expiresInMs;
    const accessToken =
      this.flavor === "codex"
        ? unsignedJwt({ exp: Math.floor(expiresAt / 1000), n: this.issued })
        : `at-${this.flavor}-${this.issued}`;
    const refreshToken = `rt-${this.flavor}-${this.issued}`;
    this.access.set(accessToken, expiresAt);
    this.refresh.add(refreshToken);
    return { accessToken, refreshToken, expiresAt };
  }

  private token(received: ReceivedRequest, res: ServerResponse): void {
    this.refreshes += 1;
    const form = this.flavor === "gemini";
    if (
      received.method !== "POST" ||
      !String(received.headers["content-type"]).startsWith(
        form ? "application/x-www-form-urlencoded" : "application/json",
      )
    )
      return fail(res, 400, "invalid_request");
    const fields: Record<string, unknown> = form
      ? Object.fromEntries(new URLSearchParams(received.body))
      : (JSON.parse(received.body) as Record<string, unknown>);
    if (fields.grant_type !== "refresh_token" || fields.client_id !== clientIds[this.flavor])
      return fail(res, 400, "invalid_client");
    if (form && typeof fields.client_secret !== "string") return fail(res, 400, "invalid_client");
    const presented = String(fields.refresh_token);
    if (!this.refresh.has(presented)) return fail(res, 400, "invalid_grant");
    const fresh = this.issue();
    const answer: Record<string, unknown> = {
      access_token: fresh.accessToken,
      expires_in: Math.floor(this.lifetimeMs / 1000),
      token_type: "Bearer",
    };
    this.refresh.delete(fresh.refreshToken);
    if (this.flavor !== "gemini") {
      // Rotated: the one presented is used up.
      this.refresh.delete(presented);
      this.refresh.add(fresh.refreshToken);
      answer.refresh_token = fresh.refreshToken;
    }
    if (this.flavor === "codex")
      answer.id_token = unsignedJwt({
        email: "dev@example.test",
        "https://api.openai.com/auth": { chatgpt_plan_type: "plus" },
      });
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
  }

  private api(received: ReceivedRequest, res: ServerResponse): void {
    const bearer = /^Bearer (\S+)$/.exec(String(received.headers.authorization ?? ""))?.[1];
    const expiry = bearer === undefined ? undefined : this.access.get(bearer);
    if (expiry === undefined || expiry <= Date.now() || received.headers["x-api-key"] !== undefined)
      return fail(res, 401, "authentication_error");
    if (
      this.flavor === "claude" &&
      !String(received.headers["anthropic-beta"] ?? "")
        .split(",")
        .includes("oauth-2025-04-20")
    )
      return fail(res, 401, "oauth_beta_missing");
    if (this.flavor === "codex" && received.headers["chatgpt-account-id"] !== this.accountId)
      return fail(res, 401, "account_mismatch");
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ ok: true, token: bearer, path: received.path }));
  }
}

function fail(res: ServerResponse, status: number, error: string): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ error }));
}

import type { LoginModel } from "../../generator/model/model.js";
import type { RuntimePaths } from "../core/paths.js";
import { LoginRefreshError, refreshLogin, type PostToken } from "./login-refresh.js";
import type { OAuthLogin } from "./login-record.js";
import { readLogin, storeLogin } from "./login-store.js";

/** What the proxy sends for a login: the token, and the account it names (Codex). */
export interface LoginCredential {
  token: string;
  accountId: string | null;
}

/** A login the proxy cannot use now, and what the user should do. */
export interface LoginRefusal {
  refusal: string;
}

/** A token this close to its expiry is refreshed first: a long answer must not outlive it. */
const refreshMarginMs = 5 * 60 * 1000;

/**
 * Gives the proxy each agent's current login token, read from the host's store. An oauth login
 * whose access token expires within five minutes is refreshed first, once however many requests
 * ask at the same time, and the new tokens are stored at once (a refresh token may be single-use).
 * The refresh token never leaves this process but to the token endpoint.
 */
export class LoginKeeper {
  private readonly refreshing = new Map<string, Promise<OAuthLogin | LoginRefusal>>();

  constructor(
    private readonly paths: RuntimePaths,
    private readonly user: string,
    private readonly post: PostToken,
    private readonly log: (line: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  async credential(agent: string, login: LoginModel): Promise<LoginCredential | LoginRefusal> {
    const stored = await readLogin(this.paths, this.user, agent).catch((error: unknown) => {
      this.log(`login of ${agent}: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    });
    if (stored === null)
      return { refusal: `the login of agent "${agent}" cannot be read on the host; see the daemon's log` };
    if (stored === undefined)
      return { refusal: `no login is stored for agent "${agent}": run forage-ctl auth set ${agent} on the host` };
    if (stored.kind === "token") return { token: stored.token, accountId: null };
    if (stored.expiresAt !== null && stored.expiresAt - refreshMarginMs > this.now())
      return { token: stored.accessToken, accountId: stored.accountId };
    const fresh = await this.refreshOnce(agent, stored, login);
    if ("refusal" in fresh) {
      // A failed refresh of a token still valid for a while is no reason to refuse.
      return stored.expiresAt !== null && stored.expiresAt > this.now()
        ? { token: stored.accessToken, accountId: stored.accountId }
        : fresh;
    }
    return { token: fresh.accessToken, accountId: fresh.accountId };
  }

  private refreshOnce(agent: string, stored: OAuthLogin, login: LoginModel): Promise<OAuthLogin | LoginRefusal> {
    const running = this.refreshing.get(agent);
    if (running !== undefined) return running;
    const refresh = this.refresh(agent, stored, login).finally(() => this.refreshing.delete(agent));
    this.refreshing.set(agent, refresh);
    return refresh;
  }

  private async refresh(agent: string, stored: OAuthLogin, login: LoginModel): Promise<OAuthLogin | LoginRefusal> {
    try {
      const fresh = await refreshLogin(stored, login.tokenUrl, this.post, this.now);
      await storeLogin(this.paths, this.user, agent, fresh);
      this.log(
        `login of ${agent} refreshed; valid until ${fresh.expiresAt === null ? "unknown" : new Date(fresh.expiresAt).toISOString()}`,
      );
      return fresh;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.log(`login of ${agent}: refresh failed: ${message}`);
      const expired = error instanceof LoginRefreshError && error.loginExpired;
      return {
        refusal: expired
          ? `the login of agent "${agent}" has expired: ${message}`
          : `the login of agent "${agent}" could not be refreshed; see the daemon's log`,
      };
    }
  }
}

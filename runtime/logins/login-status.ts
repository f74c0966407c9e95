import type { LoginFlavor, LoginKind } from "../../generator/config/agent-logins.js";
import type { LoginRecord } from "./login-record.js";

/** What `forage-ctl auth status` shows of one agent's login: never a token. */
export interface LoginStatus {
  agent: string;
  flavor: LoginFlavor | null;
  /** What its templates ask for (null: stored, but no template uses it any more). */
  wanted: LoginKind[] | null;
  stored: LoginKind | null;
  /**
   * missing: nothing stored; valid: usable now; refreshes: the access token has expired or is about
   * to, and the host refreshes it on the next request; expired: a token past its end (set it again).
   */
  state: "missing" | "valid" | "refreshes" | "expired";
  setAt: string | null;
  /** When the stored (access) token ends, if known. */
  expiresAt: string | null;
  refreshedAt: string | null;
}

/** The status of an agent's login from what is stored (or not). */
export function loginStatus(
  agent: string,
  wanted: { flavor: LoginFlavor; kinds: LoginKind[] } | undefined,
  record: LoginRecord | undefined,
  now: number,
): LoginStatus {
  const base = { agent, flavor: wanted?.flavor ?? record?.flavor ?? null, wanted: wanted?.kinds ?? null };
  if (record === undefined)
    return { ...base, stored: null, state: "missing", setAt: null, expiresAt: null, refreshedAt: null };
  if (record.kind === "token") {
    const ends = record.expiresAt === null ? null : Date.parse(record.expiresAt);
    return {
      ...base,
      stored: "token",
      state: ends !== null && ends <= now ? "expired" : "valid",
      setAt: record.setAt,
      expiresAt: record.expiresAt,
      refreshedAt: null,
    };
  }
  const ends = record.expiresAt;
  return {
    ...base,
    stored: "oauth",
    state: ends !== null && ends - 5 * 60_000 > now ? "valid" : "refreshes",
    setAt: record.setAt,
    expiresAt: ends === null ? null : new Date(ends).toISOString(),
    refreshedAt: record.refreshedAt,
  };
}

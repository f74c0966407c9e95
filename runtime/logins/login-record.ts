import { z } from "zod";

/** A token as an HTTP header carries it: printable ASCII, no spaces, so a stored value cannot inject a header. */
export const tokenValue = z
  .string()
  .regex(/^[\x21-\x7e]{1,8192}$/, { error: "must be one line of printable ASCII without spaces" });
const flavor = z.enum(["claude", "codex", "gemini"]);
const isoTime = z.iso.datetime();

/** A long-lived token (Claude Code's `claude setup-token`): no refresh; its expiry as far as known. */
const tokenLogin = z.strictObject({
  kind: z.literal("token"),
  flavor,
  token: tokenValue,
  setAt: isoTime,
  /** When the token stops working, if known (a setup token lasts about a year). */
  expiresAt: isoTime.nullable(),
});

/**
 * An agent's own OAuth login, as the host keeps it: the tokens the proxy uses and refreshes, and
 * what the agent's stand-in file repeats to look logged in (scopes, plan, account, identity claims).
 */
const oauthLogin = z.strictObject({
  kind: z.literal("oauth"),
  flavor,
  accessToken: tokenValue,
  refreshToken: tokenValue,
  /** Milliseconds since the epoch; null when unknown (refreshed before its first use). */
  expiresAt: z.number().int().nonnegative().nullable(),
  /** Codex: the ChatGPT account, sent as `chatgpt-account-id`. */
  accountId: z
    .string()
    .max(256)
    .regex(/^[\x21-\x7e]*$/)
    .nullable(),
  /** Codex: the identity token's claims (e-mail, plan), never the signed token itself. */
  idClaims: z.record(z.string(), z.unknown()).nullable(),
  scopes: z.array(z.string().max(256)).max(64),
  /** Claude: the subscription ("pro", "max"), shown by the agent. */
  subscriptionType: z.string().max(64).nullable(),
  setAt: isoTime,
  refreshedAt: isoTime.nullable(),
});

export const loginRecord = z.discriminatedUnion("kind", [tokenLogin, oauthLogin]);
export type LoginRecord = z.output<typeof loginRecord>;
export type TokenLogin = z.output<typeof tokenLogin>;
export type OAuthLogin = z.output<typeof oauthLogin>;

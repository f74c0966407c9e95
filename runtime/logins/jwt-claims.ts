/**
 * The claims of a JWT, read without checking its signature (the host only reads what the token
 * itself says: its expiry, the account it names); undefined when it is not a JWT.
 */
export function jwtClaims(token: string): Record<string, unknown> | undefined {
  const parts = token.split(".");
  if (parts.length !== 3 || parts[1] === undefined) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8"));
    return typeof claims === "object" && claims !== null && !Array.isArray(claims)
      ? (claims as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A JWT's `exp` in milliseconds, or null. */
export function jwtExpiry(token: string): number | null {
  const exp = jwtClaims(token)?.exp;
  return typeof exp === "number" && Number.isFinite(exp) ? Math.round(exp * 1000) : null;
}

/** An unsigned JWT carrying `claims`: a stand-in an agent can decode (it never checks signatures) but no server accepts. */
export function unsignedJwt(claims: Record<string, unknown>): string {
  const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${encode({ alg: "none", typ: "JWT" })}.${encode(claims)}.forage-stand-in`;
}

import type { ServerResponse } from "node:http";

/** Why the proxy answered a request itself; each kind has its status and is counted apart. */
export type RefusalKind =
  | "unknown-agent"
  | "bad-path"
  | "method"
  | "path"
  | "too-large"
  | "rate-limit"
  | "queue-full"
  | "no-key"
  | "upstream"
  | "encoding"
  | "foreign-placeholder";

const statuses: Record<RefusalKind, number> = {
  "unknown-agent": 404,
  "bad-path": 400,
  method: 403,
  path: 403,
  // A policy refusal, as for a method or path: the request is well-formed, its stand-in is not this route's.
  "foreign-placeholder": 403,
  "too-large": 413,
  "rate-limit": 429,
  "queue-full": 429,
  "no-key": 503,
  upstream: 502,
  // The upstream's answer, not the request, is at fault: a bad gateway, as for "upstream".
  encoding: 502,
};

/**
 * Answers with a JSON error the agent (and its user) can act on: the kind, a message naming the
 * rule and the fix, and any details (which limit, when to retry).
 *
 * @example {"error":{"type":"forage_rate-limit","message":"…","limit":"requests","retryAfterSeconds":12}}
 */
export function refuse(
  res: ServerResponse,
  kind: RefusalKind,
  message: string,
  details: Record<string, unknown> = {},
): number {
  const status = statuses[kind];
  if (res.headersSent) {
    res.destroy();
    return status;
  }
  const body = JSON.stringify({ type: "error", error: { type: `forage_${kind}`, message, ...details } });
  const headers: Record<string, string | number> = {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  };
  if (typeof details.retryAfterSeconds === "number") headers["retry-after"] = details.retryAfterSeconds;
  res.writeHead(status, headers).end(body);
  return status;
}

/**
 * A strict reader of HTTP/1 request heads (RFC 9112), for the name gate: it allows what is
 * well-formed and refuses the rest, instead of listing bad patterns. The name it returns is the
 * one an upstream would act on: the authority of an absolute-form target, which RFC 9112 §3.2.2
 * says wins over Host, must name the same host (a proxy upstream would otherwise go elsewhere).
 */

/** Longest request head read (the gate's whole first read: 16 KiB and a TLS record header). */
export const maxHeadBytes = 16 * 1024 + 5;

/** How the body after a head is framed (RFC 9112 §6.3, as a server reads a request). */
export type BodyFraming = { kind: "none" } | { kind: "length"; bytes: number } | { kind: "chunked" };

export type RequestHead =
  | { kind: "need-more" }
  | { kind: "refuse"; reason: string }
  | {
      kind: "head";
      host: string;
      /** bytes of the head, with its closing empty line */ length: number;
      body: BodyFraming;
    };

/** RFC 9110 §5.6.2 token: a method or a field name. */
const token = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** RFC 9110 §5.5 field-value characters: visible ASCII, obs-text, space and tab; no controls. */
const fieldValue = /^[\t\x20-\x7e\x80-\xff]*$/;
/** A host name (letters, digits, '-', '_', dots) and an optional port: no IP literals, no userinfo. */
const authority = /^([a-z0-9_.-]+?)\.?(?::(\d{1,5}))?$/;

/**
 * Reads the request head at the start of `data`, as sent to `port`.
 *
 * @example readRequestHead(Buffer.from("GET / HTTP/1.1\r\nHost: a.example\r\n\r\n"), 80)
 * // { kind: "head", host: "a.example", length: 35, body: { kind: "none" } }
 */
export function readRequestHead(data: Buffer, port: number): RequestHead {
  const end = data.indexOf("\r\n\r\n");
  // The limit holds for a head that arrives whole too (a later pipelined request comes in one chunk).
  if (end === -1 ? data.length >= maxHeadBytes : end + 4 > maxHeadBytes) return refuse("request head too long");
  if (end === -1) return { kind: "need-more" };
  const text = data.subarray(0, end).toString("latin1");
  const lines = text.split("\r\n");
  if (lines.some((line) => line.includes("\r") || line.includes("\n")))
    return refuse("bare CR or LF in the request head");
  const start = requestLine(lines[0] ?? "");
  if ("reason" in start) return refuse(start.reason);
  const fields = headerFields(lines.slice(1));
  if ("reason" in fields) return refuse(fields.reason);
  // After a protocol switch (WebSocket, h2c) the bytes are no longer requests the gate can judge.
  if (fields.values("upgrade").length > 0) return refuse("Upgrade through the name gate (use TLS)");
  const host = judgeAuthority(start.target, fields.values("host"), port);
  if ("reason" in host) return refuse(host.reason);
  const body = bodyFraming(start.method, start.version, fields);
  if ("reason" in body) return refuse(body.reason);
  return { kind: "head", host: host.name, length: end + 4, body };
}

function refuse(reason: string): RequestHead {
  return { kind: "refuse", reason };
}

type Refusal = { reason: string };

function requestLine(line: string): { method: string; target: string; version: string } | Refusal {
  const [method = "", target = "", version = "", ...rest] = line.split(" ");
  if (rest.length > 0 || !token.test(method) || !/^HTTP\/1\.[01]$/.test(version) || !/^[\x21-\x7e]+$/.test(target))
    return { reason: "not HTTP/1" };
  // CONNECT (authority-form) asks the upstream for a tunnel to wherever it names.
  if (method === "CONNECT") return { reason: "CONNECT through the name gate" };
  return { method, target, version };
}

interface Fields {
  values(name: string): string[];
}

function headerFields(lines: string[]): Fields | Refusal {
  const fields = new Map<string, string[]>();
  for (const line of lines) {
    if (line.startsWith(" ") || line.startsWith("\t")) return { reason: "obsolete line folding" };
    const colon = line.indexOf(":");
    const name = line.slice(0, Math.max(colon, 0));
    // No whitespace between a field name and its colon (RFC 9112 §5.1: a server must reject it).
    // The record shows the line only up to its colon: no header value goes into the logs.
    if (colon <= 0 || !token.test(name))
      return { reason: `malformed header line ${JSON.stringify(line.slice(0, colon === -1 ? 40 : colon + 1))}` };
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, "");
    if (!fieldValue.test(value)) return { reason: `control character in ${name}` };
    const key = name.toLowerCase();
    fields.set(key, [...(fields.get(key) ?? []), value]);
  }
  return { values: (name) => fields.get(name) ?? [] };
}

/**
 * The one host the request is for: Host, and an absolute-form target's authority, which must
 * agree with it; either may carry a port, which must be the one the connection is for.
 */
function judgeAuthority(target: string, hosts: string[], port: number): { name: string } | Refusal {
  if (hosts.length !== 1) return { reason: hosts.length === 0 ? "no Host header" : "several Host headers" };
  const host = hostName(hosts[0] ?? "", port);
  if ("reason" in host) return host;
  if (target.startsWith("/") || target === "*") return host;
  const absolute = /^http:\/\/([^/?#]*)/i.exec(target);
  if (absolute === null) return { reason: "request target is not origin-form or an http:// URL" };
  const named = hostName(absolute[1] ?? "", port);
  if ("reason" in named) return { reason: `request target: ${named.reason}` };
  if (named.name !== host.name) return { reason: `request target names ${named.name}, Host names ${host.name}` };
  return host;
}

function hostName(value: string, port: number): { name: string } | Refusal {
  const match = authority.exec(value.toLowerCase());
  if (match === null) return { reason: "Host is not a host name" };
  if (match[2] !== undefined && Number(match[2]) !== port)
    return { reason: `Host names port ${match[2]}, the connection is for port ${port}` };
  return { name: match[1] ?? "" };
}

/**
 * The body's framing. Ambiguous framing is refused rather than guessed, as the upstream might
 * guess otherwise: Transfer-Encoding with Content-Length, codings other than chunked alone,
 * Content-Length that is not one number, and bodies on GET and HEAD (an upstream that ignores
 * them would read the body as the next request).
 */
function bodyFraming(method: string, version: string, fields: Fields): BodyFraming | Refusal {
  const lengths = fields.values("content-length");
  const codings = fields.values("transfer-encoding");
  if (lengths.length > 0 && codings.length > 0) return { reason: "Transfer-Encoding with Content-Length" };
  const withBody = (framing: BodyFraming): BodyFraming | Refusal =>
    (method === "GET" || method === "HEAD") && framing.kind !== "none" ? { reason: `${method} with a body` } : framing;
  if (codings.length > 0) {
    if (version !== "HTTP/1.1" || codings.length !== 1 || codings[0]?.toLowerCase() !== "chunked")
      return { reason: "Transfer-Encoding other than chunked alone" };
    return withBody({ kind: "chunked" });
  }
  if (lengths.length > 1) return { reason: "several Content-Length headers" };
  if (lengths.length === 0) return { kind: "none" };
  if (!/^\d{1,15}$/.test(lengths[0] ?? "")) return { reason: "Content-Length is not a number" };
  const bytes = Number(lengths[0]);
  return withBody(bytes === 0 ? { kind: "none" } : { kind: "length", bytes });
}

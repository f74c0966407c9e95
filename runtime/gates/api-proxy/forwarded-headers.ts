/**
 * Headers that describe one connection, not the request (RFC 9110 §7.6.1), plus the ones proxies
 * use among themselves. None of them is passed on in either direction.
 */
const hopByHop = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
]);

/**
 * A request's framing is never copied: the proxy frames each body itself (see upstreamFraming),
 * so nothing a sandbox sends can make one request's body read as another request on a pooled
 * upstream connection.
 */
const framing = new Set(["content-length", "transfer-encoding"]);

/**
 * Headers a sandbox could use to pass itself off as someone else, or to learn or set what the
 * proxy decides: the reference's identity header, forwarding chains, and every header an API key
 * travels in. The proxy identifies a sandbox by its address and sets the key itself.
 */
const neverFromSandbox = new Set([
  "x-forage-sandbox",
  "forwarded",
  "via",
  "x-real-ip",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-forwarded-port",
  "x-forwarded-server",
  "x-original-forwarded-for",
  "true-client-ip",
  "cf-connecting-ip",
  "x-client-ip",
  "x-cluster-client-ip",
  // Some API front ends take the method from these: a POST could act as a DELETE past proxyFilter.
  "x-http-method-override",
  "x-http-method",
  "x-method-override",
  // APIs authenticate by key: a cookie would be a second credential the sandbox picks.
  "cookie",
  // Node's server already answered `100-continue` (or 417) to the sandbox; passed on, it would
  // make the upstream hold the body back or answer 100 to the proxy instead.
  "expect",
]);

/**
 * Response headers never passed to a sandbox: a session an upstream opens for a request it
 * authenticated with the host's key is a credential of that key.
 */
const neverToSandbox = new Set(["set-cookie", "set-cookie2"]);

/** Headers that carry provider keys; with auth "proxy" the sandbox's own values are dropped. */
export const keyHeaders = new Set(["authorization", "x-api-key", "x-goog-api-key", "api-key"]);

/** `rawHeaders` ([name, value, name, value, …]) as name/value pairs, names lower-cased. */
export function headerPairs(rawHeaders: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2)
    pairs.push([(rawHeaders[i] as string).toLowerCase(), rawHeaders[i + 1] as string]);
  return pairs;
}

/** The names a `Connection` header lists: hop-by-hop for this message too. */
function connectionListed(pairs: readonly [string, string][]): Set<string> {
  const listed = new Set<string>();
  for (const [name, value] of pairs)
    if (name === "connection") for (const token of value.split(",")) listed.add(token.trim().toLowerCase());
  return listed;
}

/**
 * The request headers to send upstream: hop-by-hop, forwarding and identity headers dropped,
 * and (`dropKeys`) every key header too.
 *
 * @example requestHeaders(headerPairs(["X-Api-Key", "sk-…", "Accept", "*\/*"]), true) // [["accept", "*\/*"]]
 */
export function requestHeaders(pairs: readonly [string, string][], dropKeys: boolean): [string, string][] {
  const listed = connectionListed(pairs);
  return pairs.filter(
    ([name]) =>
      !hopByHop.has(name) &&
      !framing.has(name) &&
      !listed.has(name) &&
      !neverFromSandbox.has(name) &&
      !(dropKeys && keyHeaders.has(name)),
  );
}

/** The response headers to send back to the sandbox: hop-by-hop ones and cookies dropped (never its length). */
export function responseHeaders(pairs: readonly [string, string][]): [string, string][] {
  const listed = connectionListed(pairs);
  return pairs.filter(
    ([name]) => !hopByHop.has(name) && !neverToSandbox.has(name) && (name === "content-length" || !listed.has(name)),
  );
}

/**
 * How the proxy frames a request body upstream, from what Node's parser found in the request:
 * a validated Content-Length is kept, a chunked body is sent chunked, and no body is no body.
 */
export function upstreamFraming(headers: {
  "content-length"?: string | undefined;
  "transfer-encoding"?: string | undefined;
}): Record<string, string> {
  if (headers["transfer-encoding"] !== undefined) return { "transfer-encoding": "chunked" };
  if (headers["content-length"] !== undefined && /^\d{1,15}$/.test(headers["content-length"]))
    return { "content-length": headers["content-length"] };
  return { "content-length": "0" };
}

/**
 * Headers that describe one connection, not the request (RFC 9110 §7.6.1), plus the ones proxies
 * use among themselves. None of them is passed on in either direction.
 */
const hopByHop = new Set([
  "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection",
  "te", "trailer", "transfer-encoding", "upgrade", "host",
]);

/**
 * Headers a sandbox could use to pass itself off as someone else, or to learn or set what the
 * proxy decides: the reference's identity header, forwarding chains, and every header an API key
 * travels in. The proxy identifies a sandbox by its address and sets the key itself.
 */
const neverFromSandbox = new Set([
  "x-forage-sandbox", "forwarded", "via", "x-real-ip", "x-forwarded-for", "x-forwarded-host",
  "x-forwarded-proto", "x-forwarded-port", "x-forwarded-server",
]);

/** Headers that carry provider keys; with auth "proxy" the sandbox's own values are dropped. */
export const keyHeaders = new Set(["authorization", "x-api-key", "x-goog-api-key", "api-key"]);

/** `rawHeaders` ([name, value, name, value, …]) as name/value pairs, names lower-cased. */
export function headerPairs(rawHeaders: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) pairs.push([(rawHeaders[i] as string).toLowerCase(), rawHeaders[i + 1] as string]);
  return pairs;
}

/** The names a `Connection` header lists: hop-by-hop for this message too. */
function connectionListed(pairs: readonly [string, string][]): Set<string> {
  const listed = new Set<string>();
  for (const [name, value] of pairs) if (name === "connection") for (const token of value.split(",")) listed.add(token.trim().toLowerCase());
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
  return pairs.filter(([name]) => !hopByHop.has(name) && !listed.has(name) && !neverFromSandbox.has(name) && !(dropKeys && keyHeaders.has(name)));
}

/** The response headers to send back to the sandbox: hop-by-hop ones dropped. */
export function responseHeaders(pairs: readonly [string, string][]): [string, string][] {
  const listed = connectionListed(pairs);
  return pairs.filter(([name]) => !hopByHop.has(name) && !listed.has(name));
}

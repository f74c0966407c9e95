import { hostMatches } from "./host-match.js";

/** A placeholder a sandbox holds, the secret it stands for, and the hosts that may receive the key. */
export interface PlaceholderBinding {
  placeholder: string;
  secret: string;
  hosts: readonly string[];
}

/** What a credential looks like where the proxy may swap a placeholder in it. */
export interface CredentialShape {
  /** Lower-case headers that carry keys (the provider's, and the usual ones). */
  headers: ReadonlySet<string>;
  /** Whole values a placeholder may stand in, `{key}` for it: e.g. "{key}", "Bearer {key}". */
  forms: readonly string[];
}

/**
 * The key a header value stands for, when the value is exactly a credential made of a placeholder
 * bound to `upstreamHost`; otherwise the value unchanged. Only whole credentials in key headers
 * are swapped: a placeholder anywhere else (a path, a model name, a beta flag, a body) stays as
 * it is, so no API can echo the key back in an error message. A request to a host the secret is
 * not bound to carries the stand-in, never the key.
 *
 * @example swapCredential("authorization", "Bearer forage-placeholder-ab…", "api.openai.com", shape, bindings, keyOf) // "Bearer sk-…"
 */
export function swapCredential(name: string, value: string, upstreamHost: string, shape: CredentialShape, bindings: readonly PlaceholderBinding[], keyOf: (secret: string) => string | undefined): string {
  if (!shape.headers.has(name)) return value;
  for (const binding of bindings) {
    const form = shape.forms.find((candidate) => candidate.split("{key}").join(binding.placeholder) === value);
    if (form === undefined || !binding.hosts.some((host) => hostMatches(host, upstreamHost))) continue;
    const key = keyOf(binding.secret);
    return key === undefined ? value : form.split("{key}").join(key);
  }
  return value;
}

/**
 * The request target with a bound placeholder swapped in its `key` query parameter (how Google's
 * API takes a key in the URL), and nowhere else in it.
 */
export function swapQueryKey(target: string, upstreamHost: string, bindings: readonly PlaceholderBinding[], keyOf: (secret: string) => string | undefined): string {
  const query = target.indexOf("?");
  if (query === -1) return target;
  const parts = target.slice(query + 1).split("&").map((part) => {
    if (!part.startsWith("key=")) return part;
    const binding = bindings.find((candidate) => candidate.placeholder === part.slice(4) && candidate.hosts.some((host) => hostMatches(host, upstreamHost)));
    const key = binding === undefined ? undefined : keyOf(binding.secret);
    return key === undefined ? part : `key=${encodeURIComponent(key)}`;
  });
  return `${target.slice(0, query)}?${parts.join("&")}`;
}

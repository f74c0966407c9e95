import { hostMatches } from "./host-match.js";

/** A placeholder a sandbox holds, the secret it stands for, and the hosts that may receive the key. */
export interface PlaceholderBinding {
  placeholder: string;
  secret: string;
  hosts: readonly string[];
}

/**
 * Replaces each placeholder bound to `upstreamHost` by its key, in `text` (a header value or the
 * request target). Placeholders not bound to the host stay as they are: a request to any other
 * host carries the stand-in, never the key.
 *
 * @example swapPlaceholders("Bearer forage-placeholder-ab…", "api.openai.com", bindings, keys) // "Bearer sk-…"
 */
export function swapPlaceholders(text: string, upstreamHost: string, bindings: readonly PlaceholderBinding[], keyOf: (secret: string) => string | undefined): string {
  let result = text;
  for (const binding of bindings) {
    if (!result.includes(binding.placeholder) || !binding.hosts.some((host) => hostMatches(host, upstreamHost))) continue;
    const key = keyOf(binding.secret);
    if (key !== undefined) result = result.split(binding.placeholder).join(key);
  }
  return result;
}

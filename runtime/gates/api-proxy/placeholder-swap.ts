import type { AgentApiModel } from "../../../generator/model/model.js";
import { dropUndefined } from "../../../generator/lib/drop-undefined.js";
import { hostMatches } from "./host-match.js";

/** A placeholder a sandbox holds, the secret it stands for, and the hosts that may receive the key. */
export interface PlaceholderBinding {
  placeholder: string;
  secret: string;
  hosts: readonly string[];
}

/**
 * Where one provider reads its key: its own header with its own form, and (Google only) the
 * `key` query parameter. Nothing else ever receives a key, whatever the sandbox sends.
 */
export interface KeyPlacement {
  /** Lower-case header, e.g. "authorization". */
  header: string;
  /** The header's whole value, `{key}` for the key, e.g. "Bearer {key}". */
  form: string;
  /** Whether `?key=` carries the key (Gemini / generativelanguage.googleapis.com). */
  queryKey: boolean;
}

/**
 * The provider's own key placement, from its API settings. Google's Gemini API documents both
 * `x-goog-api-key` and the `key` query parameter; Anthropic (`x-api-key`), OpenAI
 * (`Authorization: Bearer`) and custom APIs (`api.header`) take the header only.
 *
 * @example keyPlacement(openai) // { header: "authorization", form: "Bearer {key}", queryKey: false }
 */
export function keyPlacement(api: Pick<AgentApiModel, "provider" | "header" | "value">): KeyPlacement {
  return { header: api.header, form: api.value, queryKey: api.provider === "google" };
}

/**
 * The stand-ins a request may hold and the one it may have swapped: the sandbox's placeholders,
 * the secret of the agent whose route the request came by, and the keys' reader.
 */
export interface PlaceholderScope {
  bindings: readonly PlaceholderBinding[];
  /** The route's agent's secret: only its placeholder becomes a key on this route. */
  secret: string | null;
  keyOf: (secret: string) => string | undefined;
}

/** Where a stand-in of another agent's secret was sent for a swap: the request is refused. */
export interface ForeignPlaceholder {
  foreign: string;
}

/** A header after placeholder handling: its value to send (with the key swapped in, if it was), dropped, or refused. */
export type SwappedHeader = { value: string; key?: string } | ForeignPlaceholder | null;

/**
 * Swaps the route's agent's placeholder for its key in the provider's own key header when the
 * value is exactly the provider's form (e.g. "Bearer <placeholder>"). Another agent's placeholder
 * there is refused (`foreign`): two agents' upstreams may share a host, and a stand-in is its own
 * agent's, never a way to put one agent's key on another's requests. Any other header that
 * carries keys (`keyHeaders`) and holds a placeholder is dropped: the sandbox does not choose where
 * a key travels. Elsewhere (a path, a beta flag, part of a value) a placeholder stays as it is, so
 * no API can echo the key back. A request to a host the secret is not bound to carries the stand-in.
 *
 * @example swapCredential("authorization", "Bearer forage-placeholder-ab…", "api.openai.com", placement, keyHeaders, scope) // { value: "Bearer sk-…", key: "sk-…" }
 */
export function swapCredential(
  name: string,
  value: string,
  upstreamHost: string,
  placement: KeyPlacement,
  keyHeaders: ReadonlySet<string>,
  scope: PlaceholderScope,
): SwappedHeader {
  const { bindings, keyOf } = scope;
  if (name !== placement.header) {
    return keyHeaders.has(name) && bindings.some((binding) => value.includes(binding.placeholder)) ? null : { value };
  }
  for (const binding of bindings) {
    if (placement.form.split("{key}").join(binding.placeholder) !== value) continue;
    if (binding.secret !== scope.secret) return { foreign: binding.secret };
    if (!binding.hosts.some((host) => hostMatches(host, upstreamHost))) continue;
    const key = keyOf(binding.secret);
    return key === undefined ? { value } : { value: placement.form.split("{key}").join(key), key };
  }
  return { value };
}

/**
 * The request target with the route's agent's placeholder in its `key` query parameter swapped
 * for the key, where the provider reads keys there (Google); another agent's placeholder there is
 * refused (`foreign`). For every other provider a `key` parameter that holds a placeholder is
 * removed, so the key never lands in a URL an upstream may echo (a redirect's Location, a 404 page).
 *
 * @example swapQueryKey("/v1/x?key=forage-placeholder-ab…&a=1", "api.openai.com", openai, scope) // { target: "/v1/x?a=1" }
 */
export function swapQueryKey(
  target: string,
  upstreamHost: string,
  placement: KeyPlacement,
  scope: PlaceholderScope,
): { target: string; key?: string } | ForeignPlaceholder {
  const query = target.indexOf("?");
  if (query === -1) return { target };
  let swapped: string | undefined;
  const parts: string[] = [];
  for (const part of target.slice(query + 1).split("&")) {
    const binding = part.startsWith("key=")
      ? scope.bindings.find((candidate) => candidate.placeholder === part.slice(4))
      : undefined;
    if (binding === undefined) parts.push(part);
    else if (placement.queryKey && binding.secret !== scope.secret) return { foreign: binding.secret };
    else if (placement.queryKey && binding.hosts.some((host) => hostMatches(host, upstreamHost))) {
      const key = scope.keyOf(binding.secret);
      if (key !== undefined) swapped = key;
      parts.push(key === undefined ? part : `key=${encodeURIComponent(key)}`);
    } else if (placement.queryKey) parts.push(part);
  }
  const rest = parts.join("&");
  return {
    target: `${target.slice(0, query)}${parts.length === 0 ? "" : `?${rest}`}`,
    ...dropUndefined({ key: swapped }),
  };
}

import { templateNameSource } from "../../../generator/lib/template-name.js";
import { canonicalPath } from "./path-grammar.js";
import type { RefusalKind } from "./proxy-refusal.js";
import type { ProxiedAgent, SandboxProxy } from "./sandbox-proxy.js";

/** A request the proxy will forward: its agent and the upstream path with query. */
export interface Admitted {
  ok: true;
  agent: ProxiedAgent;
  /** Path (canonically encoded) and query relative to the agent's upstream, e.g. "/v1/messages?beta=true". */
  target: string;
  /** The path alone, decoded, for filters and the audit log. */
  path: string;
}

/** A request the proxy answers itself; agent and path when the route was found, for the audit log. */
export interface Refused {
  ok: false;
  kind: RefusalKind;
  message: string;
  agent?: ProxiedAgent;
  path?: string;
}

export type Checked = Admitted | Refused;

/** `/<agent>/<upstream path>?<query>`: the agent's name, the path and the query; no fragment. */
const agentRoute = new RegExp(`^/(${templateNameSource})(/[^?#]*)?(\\?[^#]*)?$`);

/**
 * Routes a request to its agent (`/<agent>/<upstream path>`) and applies the template's filter:
 * method, path prefix, declared body size. The sandbox's own body-size claims are checked again
 * while the body streams.
 */
export function checkRequest(
  route: SandboxProxy,
  method: string,
  url: string,
  contentLength: number | undefined,
): Checked {
  const match = agentRoute.exec(url);
  const agent = match === null ? undefined : route.agents.get(match[1] as string);
  if (match === null || agent === undefined) {
    const known = [...route.agents.keys()].join(", ") || "none";
    return {
      ok: false,
      kind: "unknown-agent",
      message: `no agent behind the proxy at ${(url.split("?")[0] ?? "").slice(0, 64)} in sandbox ${route.sandbox}; paths start with the agent's name (${known})`,
    };
  }
  const raw = match[2] ?? "/";
  const canonical = canonicalPath(raw);
  if (!canonical.ok)
    return {
      ok: false,
      kind: "bad-path",
      message: `the request path ${canonical.reason}; the proxy forwards only plain paths`,
      agent,
      path: raw,
    };
  const path = canonical.decoded;
  const refused = (kind: RefusalKind, message: string): Checked => ({ ok: false, kind, message, agent, path });
  const { filter } = route;
  if (!filter.methods.some((allowed) => allowed === method)) {
    return refused(
      "method",
      `method ${method} is not allowed for template ${route.template} (allowed: ${filter.methods.join(", ")}); add it to templates.${route.template}.proxyFilter.methods`,
    );
  }
  if (!filter.pathPrefixes.some((prefix) => path.startsWith(prefix))) {
    return refused(
      "path",
      `path ${path} is not allowed for template ${route.template} (allowed prefixes: ${filter.pathPrefixes.join(", ")}); add one to templates.${route.template}.proxyFilter.pathPrefixes`,
    );
  }
  if (contentLength !== undefined && contentLength > filter.maxRequestBytes)
    return refused("too-large", tooLarge(route, contentLength));
  return { ok: true, agent, target: `${canonical.encoded}${match[3] ?? ""}`, path };
}

export function tooLarge(route: SandboxProxy, bytes: number): string {
  return `request body of ${bytes} bytes is over template ${route.template}'s limit of ${route.filter.maxRequestBytes}; raise templates.${route.template}.proxyFilter.maxRequestBytes`;
}

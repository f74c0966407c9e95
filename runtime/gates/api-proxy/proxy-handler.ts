import { request as httpsRequest } from "node:https";
import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { headerPairs, keyHeaders, requestHeaders, upstreamFraming } from "./forwarded-headers.js";
import {
  keyPlacement,
  swapCredential,
  swapQueryKey,
  type ForeignPlaceholder,
  type PlaceholderScope,
} from "./placeholder-swap.js";
import { openExchange, upstreamFailed, type Exchange, type ProxyServices } from "./proxy-exchange.js";
import type { RateRefusal } from "./rate-limiter.js";
import { checkRequest, tooLarge, type Admitted } from "./request-checks.js";
import type { SandboxProxy } from "./sandbox-proxy.js";
import type { LoginCredential, LoginRefusal } from "../../logins/login-keeper.js";
import { applyLoginHeaders } from "./login-headers.js";
import { relayResponse } from "./response-relay.js";

/** An upstream that sends nothing for this long is given up on (model answers can take minutes). */
const upstreamIdleMs = 10 * 60_000;

/**
 * Serves one request from a sandbox: counts it against the sandbox's limits, routes it to the
 * agent's API, applies the template's filter, sets or swaps in the key, streams the body both
 * ways without buffering (SSE arrives as it is sent), and writes one audit record when it ends.
 */
export function handleProxyRequest(
  route: SandboxProxy,
  req: IncomingMessage,
  res: ServerResponse,
  services: ProxyServices,
): void {
  // The MCP gate's path: no agent's name starts with "_". Its messages count against the
  // sandbox's request limit too: an allowed tool's calls spend the host's token at the server.
  if (services.mcp !== undefined && (req.url ?? "").startsWith("/_mcp/")) {
    const limited = services.limiter.admit(route.sandbox, Date.now());
    if (limited === null) return services.mcp({ sandbox: route.sandbox }, req, res);
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32000, message: overLimit(route.sandbox, limited) },
    });
    return void res
      .writeHead(429, { "content-type": "application/json", "retry-after": String(limited.retryAfterSeconds) })
      .end(body);
  }
  const exchange = openExchange(route, req, res, services);
  // Every request counts, refused ones too: a flood of bad requests is limited like any other.
  const limited = services.limiter.admit(route.sandbox, Date.now());
  if (limited !== null) return exchange.answer("rate-limit", overLimit(route.sandbox, limited), { ...limited });
  const checked = checkRequest(
    route,
    exchange.record.method,
    req.url ?? "/",
    req.headers["content-length"] === undefined ? undefined : Number(req.headers["content-length"]),
  );
  Object.assign(exchange.record, {
    agent: checked.agent?.name ?? "",
    provider: checked.agent?.api.provider ?? "",
    path: checked.path ?? "",
  });
  if (!checked.ok) return exchange.answer(checked.kind, checked.message);
  const { secret } = checked.agent;
  if (secret !== null && services.keys.get(secret) === undefined)
    return exchange.answer("no-key", `the key of secret "${secret}" cannot be read on the host; see the proxy's log`);
  const pass = services.gate.enter(route.sandbox, () => {
    // Its turn may come after other requests spent the sandbox's tokens.
    const spent = services.limiter.tokensSpent(route.sandbox, Date.now());
    if (spent !== null) return exchange.answer("rate-limit", overLimit(route.sandbox, spent), { ...spent });
    void credentialOf(checked, services).then((credential) => {
      if (exchange.settled || res.destroyed) return;
      if ("refusal" in credential) return exchange.answer("no-key", credential.refusal);
      forward(checked, credential, req, res, services, exchange);
    });
  });
  if (pass === null)
    return exchange.answer(
      "queue-full",
      `sandbox ${route.sandbox} has too many requests waiting for the proxy; wait for some to finish`,
      { retryAfterSeconds: 1 },
    );
  res.once("close", () => pass.leave());
}

/** What an agent's requests carry: its secret's key, or its login's current token (refreshed first if need be). */
async function credentialOf(admitted: Admitted, services: ProxyServices): Promise<LoginCredential | LoginRefusal> {
  const { login, secret, name } = admitted.agent;
  if (login !== null) return services.logins.credential(name, login);
  const key = secret === null ? undefined : services.keys.get(secret);
  // Read again: a key file can vanish while a request waits for its turn.
  return key === undefined
    ? { refusal: `the key of secret "${secret ?? ""}" cannot be read on the host; see the proxy's log` }
    : { token: key, accountId: null };
}

function overLimit(sandbox: string, limited: RateRefusal): string {
  return `sandbox ${sandbox} is over its limit of ${limited.allowed} ${limited.limit} per ${limited.windowMs / 1000} s; retry in ${limited.retryAfterSeconds} s (proxy.rateLimit)`;
}

function forward(
  admitted: Admitted,
  credential: LoginCredential,
  req: IncomingMessage,
  res: ServerResponse,
  services: ProxyServices,
  exchange: Exchange,
): void {
  const { agent } = admitted;
  const upstream = agent.upstreamUrl;
  const prepared = prepare(admitted, credential, req.rawHeaders, services, exchange);
  if ("foreign" in prepared)
    return exchange.answer("foreign-placeholder", foreignPlaceholder(agent.name, agent.secret, prepared.foreign));
  const { target } = prepared;
  let outgoing: ClientRequest;
  try {
    const pool = services.upstreams.agentFor(exchange.route.sandbox, upstream.origin);
    const headers = { ...prepared.headers, ...upstreamFraming(req.headers) };
    outgoing = httpsRequest({
      protocol: "https:",
      host: upstream.hostname,
      port: upstream.port || 443,
      method: req.method,
      path: `${upstream.pathname.replace(/\/$/, "")}${target}`,
      headers,
      agent: pool,
    });
  } catch (error) {
    exchange.record.detail = (error as Error).message;
    return exchange.answer("upstream", upstreamFailed);
  }
  outgoing.setTimeout(upstreamIdleMs, () =>
    outgoing.destroy(new Error(`no answer from ${upstream.origin} for ${upstreamIdleMs / 1000} s`)),
  );
  outgoing.on("error", (error) => {
    if (exchange.settled || res.destroyed) return;
    services.counters.upstreamErrors += 1;
    exchange.record.detail = `${upstream.origin}: ${error.message}`;
    exchange.answer("upstream", upstreamFailed);
  });
  outgoing.on("response", (incoming) => relayResponse(incoming, res, services, exchange));
  res.once("close", () => {
    if (!res.writableFinished) outgoing.destroy();
  });
  streamBody(req, outgoing, services, exchange);
}

/**
 * The request's target and headers with the key set (auth "proxy") or its agent's stand-ins
 * swapped (auth "placeholder"), every key sent noted for the answer's search; or the stand-in of
 * another agent's secret the request tried to have swapped.
 */
function prepare(
  admitted: Admitted,
  credential: LoginCredential,
  raw: readonly string[],
  services: ProxyServices,
  exchange: Exchange,
): { target: string; headers: OutgoingHttpHeaders } | ForeignPlaceholder {
  const { agent } = admitted;
  const scope: PlaceholderScope = {
    bindings: exchange.route.placeholders,
    secret: agent.secret,
    keyOf: (secret) => services.keys.get(secret),
  };
  // With auth proxy the sandbox's own `key` parameter goes; with placeholder one is swapped only
  // where the provider reads keys from the URL (Google).
  const swapped =
    agent.auth === "proxy"
      ? { target: withoutKeyParameter(admitted.target), key: credential.token }
      : swapQueryKey(admitted.target, agent.upstreamUrl.host, keyPlacement(agent.api), scope);
  if ("foreign" in swapped) return swapped;
  const sent = upstreamHeaders(admitted, credential, raw, scope, exchange);
  if ("foreign" in sent) return sent;
  if (swapped.key !== undefined) exchange.sentKeys.add(swapped.key);
  return { target: swapped.target, headers: sent.headers };
}

/** What a sandbox is told when it sent another agent's stand-in where a key goes. */
function foreignPlaceholder(agent: string, secret: string | null, foreign: string): string {
  return `the stand-in key sent to /${agent}/ is secret "${foreign}"'s, not this agent's (${secret === null ? "it has none" : `secret "${secret}"`}): a stand-in becomes its key only on the routes of the agents it belongs to; send it to one of those, or use this agent's own variable`;
}

/** The sandbox's headers, cleaned; with auth "proxy" the key header is set, with "placeholder" stand-ins are swapped. */
function upstreamHeaders(
  admitted: Admitted,
  credential: LoginCredential,
  raw: readonly string[],
  scope: PlaceholderScope,
  exchange: Exchange,
): { headers: OutgoingHttpHeaders } | ForeignPlaceholder {
  const { api, auth, upstreamUrl } = admitted.agent;
  // A null prototype: a header named __proto__ or constructor is just a header.
  const headers: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  const placement = keyPlacement(api);
  const carriers = new Set([...keyHeaders, api.header]);
  for (const [name, value] of requestHeaders(headerPairs(raw), auth === "proxy")) {
    const sent =
      auth === "placeholder" ? swapCredential(name, value, upstreamUrl.host, placement, carriers, scope) : { value };
    if (sent === null) continue;
    if ("foreign" in sent) return sent;
    if (sent.key !== undefined) exchange.sentKeys.add(sent.key);
    const existing = headers[name];
    headers[name] =
      existing === undefined ? sent.value : [...(Array.isArray(existing) ? existing : [existing]), sent.value];
  }
  if (auth === "proxy") headers[api.header] = api.value.split("{key}").join(credential.token);
  if (admitted.agent.login !== null) applyLoginHeaders(headers, admitted.agent.login.flavor, credential.accountId);
  // Usage (token limits) and reflected keys are read from the answer, which compression would hide.
  headers["accept-encoding"] = "identity";
  return { headers };
}

/** "/v1/x?key=a&b=c" → "/v1/x?b=c". */
function withoutKeyParameter(target: string): string {
  const query = target.indexOf("?");
  if (query === -1) return target;
  const kept = target
    .slice(query + 1)
    .split("&")
    .filter((part) => part !== "key" && !part.startsWith("key="));
  return kept.length === 0 ? target.slice(0, query) : `${target.slice(0, query)}?${kept.join("&")}`;
}

/** Streams the request body upstream, counting it against the template's limit as it goes. */
function streamBody(req: IncomingMessage, outgoing: ClientRequest, services: ProxyServices, exchange: Exchange): void {
  const limit = exchange.route.filter.maxRequestBytes;
  const onData = (chunk: Buffer): void => {
    exchange.record.requestBytes += chunk.length;
    services.counters.requestBytes += chunk.length;
    if (exchange.record.requestBytes <= limit) return;
    req.off("data", onData);
    req.unpipe(outgoing);
    exchange.answer("too-large", tooLarge(exchange.route, exchange.record.requestBytes));
    outgoing.destroy();
  };
  req.on("data", onData);
  req.pipe(outgoing);
}

import { request as httpsRequest } from "node:https";
import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { headerPairs, keyHeaders, requestHeaders, responseHeaders, upstreamFraming } from "./forwarded-headers.js";
import type { KeyStore } from "./key-store.js";
import { swapCredential, swapQueryKey, type CredentialShape } from "./placeholder-swap.js";
import type { ProxyAuditLog, ProxyAuditRecord } from "./proxy-audit-log.js";
import { refuse, type RefusalKind } from "./proxy-refusal.js";
import type { RateLimiter } from "./rate-limiter.js";
import { checkRequest, tooLarge, type Admitted } from "./request-checks.js";
import type { ProxyCounters, SandboxProxy } from "./sandbox-proxy.js";
import { TokenMeter } from "./token-meter.js";
import type { UpstreamAgents } from "./upstream-agents.js";

/** What every request handler shares. */
export interface ProxyServices {
  keys: Pick<KeyStore, "get">;
  limiter: RateLimiter;
  upstreams: UpstreamAgents;
  audit: ProxyAuditLog;
  counters: ProxyCounters;
}

/** An upstream that sends nothing for this long is given up on (model answers can take minutes). */
const upstreamIdleMs = 10 * 60_000;

/** One request's state: its audit record, its token count, and whether it has been answered. */
interface Exchange {
  route: SandboxProxy;
  record: ProxyAuditRecord;
  meter: TokenMeter;
  /** Set once the proxy answered itself or gave up: later errors of the same exchange are echoes. */
  settled: boolean;
  answer: (kind: RefusalKind, message: string, details?: Record<string, unknown>) => void;
}

/**
 * Serves one request from a sandbox: counts it against the sandbox's limits, routes it to the
 * agent's API, applies the template's filter, sets or swaps in the key, streams the body both
 * ways without buffering (SSE arrives as it is sent), and writes one audit record when it ends.
 */
export function handleProxyRequest(route: SandboxProxy, req: IncomingMessage, res: ServerResponse, services: ProxyServices): void {
  const exchange = openExchange(route, req, res, services);
  // Every request counts, refused ones too: a flood of bad requests is limited like any other.
  const limited = services.limiter.admit(route.sandbox, Date.now());
  if (limited !== null) {
    const window = `${limited.windowMs / 1000} s`;
    return exchange.answer("rate-limit", `sandbox ${route.sandbox} is over its limit of ${limited.allowed} ${limited.limit} per ${window}; retry in ${limited.retryAfterSeconds} s (proxy.rateLimit)`, { ...limited });
  }
  const checked = checkRequest(route, exchange.record.method, req.url ?? "/", req.headers["content-length"] === undefined ? undefined : Number(req.headers["content-length"]));
  Object.assign(exchange.record, { agent: checked.agent?.name ?? "", provider: checked.agent?.api.provider ?? "", path: checked.path ?? "" });
  if (!checked.ok) return exchange.answer(checked.kind, checked.message);
  const key = services.keys.get(checked.agent.secret);
  if (key === undefined) return exchange.answer("no-key", `the key of secret "${checked.agent.secret}" cannot be read on the host; see the proxy's log`);
  forward(checked, key, req, res, services, exchange);
}

function openExchange(route: SandboxProxy, req: IncomingMessage, res: ServerResponse, services: ProxyServices): Exchange {
  const started = performance.now();
  const { counters } = services;
  counters.requests += 1;
  counters.active += 1;
  const exchange: Exchange = {
    route,
    record: { time: new Date().toISOString(), sandbox: route.sandbox, agent: "", provider: "", method: req.method ?? "", path: "", status: 0, requestBytes: 0, responseBytes: 0, durationMs: 0, tokens: 0, refused: null },
    meter: new TokenMeter(),
    settled: false,
    answer: (kind, message, details) => {
      if (exchange.settled) return;
      exchange.settled = true;
      counters.refused[kind] = (counters.refused[kind] ?? 0) + 1;
      exchange.record.refused = kind;
      refuse(res, kind, message, details);
    },
  };
  res.once("close", () => {
    counters.active -= 1;
    // 499: the sandbox went away before any answer (nginx's convention).
    exchange.record.status = res.headersSent ? res.statusCode : 499;
    exchange.record.durationMs = Math.round((performance.now() - started) * 100) / 100;
    exchange.record.tokens = exchange.meter.total();
    services.audit.write(exchange.record);
  });
  return exchange;
}

function forward(admitted: Admitted, key: string, req: IncomingMessage, res: ServerResponse, services: ProxyServices, exchange: Exchange): void {
  const { agent } = admitted;
  const upstream = agent.upstreamUrl;
  const keyOf = (secret: string): string | undefined => services.keys.get(secret);
  const placeholders = exchange.route.placeholders;
  // With auth proxy the sandbox's own `key` parameter goes (Google reads keys from it too).
  const target = agent.auth === "placeholder" ? swapQueryKey(admitted.target, upstream.host, placeholders, keyOf) : withoutKeyParameter(admitted.target);
  let outgoing: ClientRequest;
  try {
    const pool = services.upstreams.agentFor(exchange.route.sandbox, upstream.origin);
    const headers = { ...upstreamHeaders(admitted, key, req.rawHeaders, keyOf, exchange, services), ...upstreamFraming(req.headers) };
    outgoing = httpsRequest({ protocol: "https:", host: upstream.hostname, port: upstream.port || 443, method: req.method, path: `${upstream.pathname.replace(/\/$/, "")}${target}`, headers, agent: pool });
  } catch (error) {
    return exchange.answer("upstream", (error as Error).message);
  }
  outgoing.setTimeout(upstreamIdleMs, () => outgoing.destroy(new Error(`no answer from ${upstream.origin} for ${upstreamIdleMs / 1000} s`)));
  outgoing.on("error", (error) => {
    if (exchange.settled || res.destroyed) return;
    services.counters.upstreamErrors += 1;
    exchange.answer("upstream", `${upstream.origin}: ${error.message}`);
  });
  outgoing.on("response", (incoming) => relayResponse(incoming, res, services, exchange));
  res.once("close", () => {
    if (!res.writableFinished) outgoing.destroy();
  });
  streamBody(req, outgoing, services, exchange);
}

/** The sandbox's headers, cleaned; with auth "proxy" the key header is set, with "placeholder" stand-ins are swapped. */
function upstreamHeaders(admitted: Admitted, key: string, raw: readonly string[], keyOf: (secret: string) => string | undefined, exchange: Exchange, services: ProxyServices): OutgoingHttpHeaders {
  const { api, auth, upstreamUrl } = admitted.agent;
  // A null prototype: a header named __proto__ or constructor is just a header.
  const headers: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  const shape: CredentialShape = { headers: new Set([...keyHeaders, api.header]), forms: ["{key}", "Bearer {key}", api.value] };
  for (const [name, value] of requestHeaders(headerPairs(raw), auth === "proxy")) {
    const sent = auth === "placeholder" ? swapCredential(name, value, upstreamUrl.host, shape, exchange.route.placeholders, keyOf) : value;
    const existing = headers[name];
    headers[name] = existing === undefined ? sent : [...(Array.isArray(existing) ? existing : [existing]), sent];
  }
  if (auth === "proxy") headers[api.header] = api.value.split("{key}").join(key);
  // Token limits read usage from the answer, which a compressed answer would hide.
  if (services.limiter.countsTokens) headers["accept-encoding"] = "identity";
  return headers;
}

/** "/v1/x?key=a&b=c" → "/v1/x?b=c". */
function withoutKeyParameter(target: string): string {
  const query = target.indexOf("?");
  if (query === -1) return target;
  const kept = target.slice(query + 1).split("&").filter((part) => part !== "key" && !part.startsWith("key="));
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

function relayResponse(incoming: IncomingMessage, res: ServerResponse, services: ProxyServices, exchange: Exchange): void {
  if (exchange.settled || res.headersSent || res.destroyed) return void incoming.destroy();
  try {
    res.writeHead(incoming.statusCode ?? 502, responseHeaders(headerPairs(incoming.rawHeaders)).flat());
  } catch (error) {
    incoming.destroy();
    return exchange.answer("upstream", `${exchange.route.sandbox}: the upstream's answer cannot be relayed: ${(error as Error).message}`);
  }
  exchange.settled = true;
  services.counters.forwarded += 1;
  // An event stream's headers go out at once (the first event may be a while); others ride with the body.
  if (String(incoming.headers["content-type"] ?? "").startsWith("text/event-stream")) res.flushHeaders();
  let charged = 0;
  incoming.on("data", (chunk: Buffer) => {
    exchange.record.responseBytes += chunk.length;
    services.counters.responseBytes += chunk.length;
    exchange.meter.observe(chunk);
    // Charged as they stream, so long answers count before they end (or are cut off).
    const total = exchange.meter.total();
    services.limiter.spend(exchange.route.sandbox, total - charged, Date.now());
    charged = total;
  });
  incoming.on("error", () => res.destroy());
  incoming.pipe(res);
}

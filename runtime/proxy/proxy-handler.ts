import { request as httpsRequest } from "node:https";
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { headerPairs, requestHeaders, responseHeaders } from "./forwarded-headers.js";
import type { KeyStore } from "./key-store.js";
import { swapPlaceholders } from "./placeholder-swap.js";
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

/**
 * Serves one request from a sandbox: routes it to the agent's API, applies the template's filter
 * and the sandbox's rate limits, sets or swaps in the key, streams the body both ways without
 * buffering (SSE arrives as it is sent), and writes one audit record when it ends.
 */
export function handleProxyRequest(route: SandboxProxy, req: IncomingMessage, res: ServerResponse, services: ProxyServices): void {
  const started = performance.now();
  const { counters } = services;
  counters.requests += 1;
  counters.active += 1;
  const record: ProxyAuditRecord = {
    time: new Date().toISOString(), sandbox: route.sandbox, agent: "", provider: "", method: req.method ?? "", path: "",
    status: 0, requestBytes: 0, responseBytes: 0, durationMs: 0, tokens: 0, refused: null,
  };
  const meter = new TokenMeter();
  res.once("close", () => {
    counters.active -= 1;
    record.status = res.statusCode;
    record.durationMs = Math.round((performance.now() - started) * 100) / 100;
    record.tokens = meter.total();
    services.limiter.spend(route.sandbox, record.tokens, Date.now());
    services.audit.write(record);
  });
  const answer = (kind: RefusalKind, message: string, details?: Record<string, unknown>): void => {
    counters.refused[kind] = (counters.refused[kind] ?? 0) + 1;
    record.refused = kind;
    refuse(res, kind, message, details);
  };
  const declared = req.headers["content-length"] === undefined ? undefined : Number(req.headers["content-length"]);
  const checked = checkRequest(route, record.method, req.url ?? "/", declared);
  if (!checked.ok) {
    Object.assign(record, { agent: checked.agent?.name ?? "", provider: checked.agent?.api.provider ?? "", path: checked.path ?? "" });
    return answer(checked.kind, checked.message);
  }
  const admitted = checked.value;
  Object.assign(record, { agent: admitted.agent.name, provider: admitted.agent.api.provider, path: admitted.path });
  const limited = services.limiter.admit(route.sandbox, Date.now());
  if (limited !== null) {
    const window = `${limited.windowMs / 1000} s`;
    return answer("rate-limit", `sandbox ${route.sandbox} is over its limit of ${limited.allowed} ${limited.limit} per ${window}; retry in ${limited.retryAfterSeconds} s (proxy.rateLimit)`, { ...limited });
  }
  const key = services.keys.get(admitted.agent.secret);
  if (key === undefined) return answer("no-key", `the key of secret "${admitted.agent.secret}" cannot be read on the host; see the proxy's log`);
  forward(route, admitted, key, req, res, services, { record, meter, answer });
}

interface Exchange {
  record: ProxyAuditRecord;
  meter: TokenMeter;
  answer: (kind: RefusalKind, message: string) => void;
}

function forward(route: SandboxProxy, admitted: Admitted, key: string, req: IncomingMessage, res: ServerResponse, services: ProxyServices, exchange: Exchange): void {
  const { auth, upstreamUrl: upstream } = admitted.agent;
  const keyOf = (secret: string): string | undefined => services.keys.get(secret);
  const target = `${upstream.pathname.replace(/\/$/, "")}${auth === "placeholder" ? swapPlaceholders(admitted.target, upstream.host, route.placeholders, keyOf) : admitted.target}`;
  const headers = upstreamHeaders(route, admitted, key, req.rawHeaders, upstream.host, keyOf);
  let agent;
  try {
    agent = services.upstreams.agentFor(upstream.origin);
  } catch (error) {
    return exchange.answer("upstream", (error as Error).message);
  }
  const outgoing = httpsRequest({ protocol: "https:", host: upstream.hostname, port: upstream.port || 443, method: req.method, path: target, headers, agent });
  outgoing.setTimeout(upstreamIdleMs, () => outgoing.destroy(new Error(`no answer from ${upstream.origin} for ${upstreamIdleMs / 1000} s`)));
  outgoing.on("error", (error) => {
    services.counters.upstreamErrors += 1;
    exchange.answer("upstream", `${upstream.origin}: ${error.message}`);
  });
  outgoing.on("response", (incoming) => relayResponse(incoming, res, services, exchange));
  res.once("close", () => {
    if (!res.writableFinished) outgoing.destroy();
  });
  streamBody(route, req, outgoing, services, exchange);
}

/** The sandbox's headers, cleaned; with auth "proxy" the key header is set, with "placeholder" stand-ins are swapped. */
function upstreamHeaders(route: SandboxProxy, admitted: Admitted, key: string, raw: readonly string[], upstreamHost: string, keyOf: (secret: string) => string | undefined): OutgoingHttpHeaders {
  const { api, auth } = admitted.agent;
  const headers: Record<string, string | string[]> = {};
  const add = (name: string, value: string): void => {
    const existing = headers[name];
    headers[name] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
  };
  for (const [name, value] of requestHeaders(headerPairs(raw), auth === "proxy")) {
    add(name, auth === "placeholder" ? swapPlaceholders(value, upstreamHost, route.placeholders, keyOf) : value);
  }
  if (auth === "proxy") headers[api.header] = api.value.replace("{key}", key);
  return headers;
}

/** Streams the request body upstream, counting it against the template's limit as it goes. */
function streamBody(route: SandboxProxy, req: IncomingMessage, outgoing: ReturnType<typeof httpsRequest>, services: ProxyServices, exchange: Exchange): void {
  const limit = route.filter.maxRequestBytes;
  req.on("data", (chunk: Buffer) => {
    exchange.record.requestBytes += chunk.length;
    services.counters.requestBytes += chunk.length;
    if (exchange.record.requestBytes > limit) {
      req.unpipe(outgoing);
      outgoing.destroy();
      exchange.answer("too-large", tooLarge(route, exchange.record.requestBytes));
    }
  });
  req.pipe(outgoing);
}

function relayResponse(incoming: IncomingMessage, res: ServerResponse, services: ProxyServices, exchange: Exchange): void {
  if (res.headersSent || res.destroyed) return void incoming.destroy();
  services.counters.forwarded += 1;
  res.writeHead(incoming.statusCode ?? 502, responseHeaders(headerPairs(incoming.rawHeaders)).flat());
  // An event stream's headers go out at once (the first event may be a while); others ride with the body.
  if (String(incoming.headers["content-type"] ?? "").startsWith("text/event-stream")) res.flushHeaders();
  incoming.on("data", (chunk: Buffer) => {
    exchange.record.responseBytes += chunk.length;
    services.counters.responseBytes += chunk.length;
    exchange.meter.observe(chunk);
  });
  incoming.on("error", () => res.destroy());
  incoming.pipe(res);
}

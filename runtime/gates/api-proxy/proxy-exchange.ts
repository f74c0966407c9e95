import type { IncomingMessage, ServerResponse } from "node:http";
import type { KeyStore } from "./key-store.js";
import type { ProxyAuditLog, ProxyAuditRecord } from "./proxy-audit-log.js";
import { refuse, type RefusalKind } from "./proxy-refusal.js";
import type { RateLimiter } from "./rate-limiter.js";
import type { SandboxGate } from "./sandbox-gate.js";
import type { ProxyCounters, SandboxProxy } from "./sandbox-proxy.js";
import { TokenMeter } from "./token-meter.js";
import type { LoginKeeper } from "../../logins/login-keeper.js";
import type { UpstreamAgents } from "./upstream-agents.js";

/** The MCP gate's entry (runtime/gates/mcp-gate/mcp-gate-service.ts), when this process serves one. */
export type McpHandOver = (caller: { sandbox: string }, req: IncomingMessage, res: ServerResponse) => void;

/** What every request handler shares. */
export interface ProxyServices {
  keys: Pick<KeyStore, "get">;
  /** Agents' subscription logins (refreshed on the host when they expire). */
  logins: Pick<LoginKeeper, "credential">;
  limiter: RateLimiter;
  /** Per-sandbox requests in flight and waiting (see proxyGate). */
  gate: SandboxGate;
  upstreams: UpstreamAgents;
  audit: ProxyAuditLog;
  counters: ProxyCounters;
  /** Where requests to /_mcp/… go; without it they are an unknown agent's. */
  mcp?: McpHandOver;
}

/** One request's state: its audit record, its token count, and whether it has been answered. */
export interface Exchange {
  route: SandboxProxy;
  record: ProxyAuditRecord;
  meter: TokenMeter;
  /** Every key this request carried upstream: the forms the answer is searched for. */
  sentKeys: Set<string>;
  /** Set once the proxy answered itself or gave up: later errors of the same exchange are echoes. */
  settled: boolean;
  answer: (kind: RefusalKind, message: string, details?: Record<string, unknown>) => void;
}

/** What a sandbox is told when its upstream fails: the cause (an address, a TLS error) goes to the audit log. */
export const upstreamFailed =
  "the agent's API could not be reached or its answer could not be relayed; the proxy's audit log has the cause";

/** Counts a request in, and writes its audit record when its answer closes, whoever gave it. */
export function openExchange(
  route: SandboxProxy,
  req: IncomingMessage,
  res: ServerResponse,
  services: ProxyServices,
): Exchange {
  const started = performance.now();
  const { counters } = services;
  counters.requests += 1;
  counters.active += 1;
  const exchange: Exchange = {
    route,
    record: {
      time: new Date().toISOString(),
      sandbox: route.sandbox,
      agent: "",
      provider: "",
      method: req.method ?? "",
      path: "",
      status: 0,
      requestBytes: 0,
      responseBytes: 0,
      durationMs: 0,
      tokens: 0,
      refused: null,
    },
    meter: new TokenMeter(),
    sentKeys: new Set(),
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

import type { AgentApiModel, LoginModel, ProxyFilterModel } from "../../../generator/model/model.js";
import type { PlaceholderBinding } from "./placeholder-swap.js";

/** An agent of a sandbox that reaches its API through the proxy, at `/<name>/…`. */
export interface ProxiedAgent {
  name: string;
  auth: "proxy" | "placeholder";
  api: AgentApiModel;
  /** `api.upstream`, parsed once. */
  upstreamUrl: URL;
  /** The host secret whose key the agent's requests get; null for an agent with a login. */
  secret: string | null;
  /** The subscription login its requests get instead (runtime/logins), or null. */
  login: LoginModel | null;
}

/** What the proxy knows of one running sandbox: who it is, where it listens, what it forwards. */
export interface SandboxProxy {
  sandbox: string;
  template: string;
  /** The sandbox's own address: the only source the proxy accepts on its listener. */
  sandboxAddress: string;
  /** The host end of the sandbox's link, where its listener is. */
  listenAddress: string;
  agents: ReadonlyMap<string, ProxiedAgent>;
  filter: ProxyFilterModel;
  placeholders: readonly PlaceholderBinding[];
}

/** Counters the proxy exposes (forage-ctl proxy --status, the daemon's proxy operation). */
export interface ProxyCounters {
  requests: number;
  forwarded: number;
  active: number;
  refused: Record<string, number>;
  upstreamErrors: number;
  requestBytes: number;
  responseBytes: number;
  connectionsRefused: number;
}

export function newCounters(): ProxyCounters {
  return {
    requests: 0,
    forwarded: 0,
    active: 0,
    refused: {},
    upstreamErrors: 0,
    requestBytes: 0,
    responseBytes: 0,
    connectionsRefused: 0,
  };
}

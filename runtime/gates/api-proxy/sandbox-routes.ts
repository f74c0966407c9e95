import type { Model } from "../../../generator/model/model.js";
import { sandboxLink } from "../../../generator/policy/network/sandbox-link.js";
import { sandboxSecretsPath, type RuntimePaths } from "../../core/paths.js";
import type { SandboxMetadata } from "../../state/metadata.js";
import type { PlaceholderBinding } from "./placeholder-swap.js";
import { readPlaceholder } from "./sandbox-credentials.js";
import type { ProxiedAgent, SandboxProxy } from "./sandbox-proxy.js";

/**
 * Whether a config needs the API proxy at all: some agent is behind it, or some template has MCP
 * servers (the MCP gate is served on the proxy's listeners). Without one it would serve
 * nobody, so it does not run (the config checks note a `proxy.enable: true` that changes nothing).
 * Read from the agents, not `host.proxy.enable`: a settings file generated before that was derived
 * may say false beside proxied agents.
 */
export function proxyNeeded(settings: Model): boolean {
  return settings.templates.some(
    (template) => template.agents.some((agent) => agent.auth !== "wrapper") || template.mcp.servers.length > 0,
  );
}

/**
 * What the proxy serves for a running sandbox, from its template and the placeholders written
 * at its start; undefined when none of its agents is behind the proxy and it has no MCP servers.
 */
export async function sandboxRoute(
  settings: Model,
  paths: RuntimePaths,
  metadata: SandboxMetadata,
): Promise<SandboxProxy | undefined> {
  const template = settings.templates.find((candidate) => candidate.name === metadata.template);
  if (template === undefined) return undefined;
  const agents = new Map<string, ProxiedAgent>();
  for (const agent of template.agents) {
    if (agent.auth === "wrapper" || agent.api === null || (agent.secret === null && agent.login === null)) continue;
    agents.set(agent.name, {
      name: agent.name,
      auth: agent.auth,
      api: agent.api,
      upstreamUrl: new URL(agent.api.upstream),
      secret: agent.secret?.name ?? null,
      login: agent.login,
    });
  }
  if (agents.size === 0 && template.mcp.servers.length === 0) return undefined;
  const link = sandboxLink(metadata.slot, settings.host.network.base);
  return {
    sandbox: metadata.name,
    template: template.name,
    sandboxAddress: link.sandboxAddress,
    listenAddress: link.hostAddress,
    agents,
    filter: template.proxyFilter,
    placeholders: await placeholderBindings(sandboxSecretsPath(paths, metadata.name), [...agents.values()]),
  };
}

/** Each secret's placeholder in the sandbox, bound to the hosts its agents name. */
async function placeholderBindings(secretsDir: string, agents: readonly ProxiedAgent[]): Promise<PlaceholderBinding[]> {
  const hostsBySecret = new Map<string, Set<string>>();
  for (const agent of agents) {
    if (agent.auth !== "placeholder" || agent.secret === null) continue;
    const hosts = hostsBySecret.get(agent.secret) ?? new Set<string>();
    for (const host of agent.api.hosts) hosts.add(host);
    hostsBySecret.set(agent.secret, hosts);
  }
  const bindings: PlaceholderBinding[] = [];
  for (const [secret, hosts] of hostsBySecret) {
    const placeholder = await readPlaceholder(secretsDir, secret);
    if (placeholder !== undefined) bindings.push({ placeholder, secret, hosts: [...hosts].sort() });
  }
  return bindings;
}

/** Host secret files the proxy needs for the routes: name → path. */
export function keyFiles(settings: Model, routes: Iterable<SandboxProxy>): Record<string, string> {
  const files: Record<string, string> = {};
  for (const route of routes) {
    for (const agent of route.agents.values()) {
      const path = agent.secret === null ? undefined : settings.host.secrets[agent.secret];
      if (agent.secret !== null && path !== undefined) files[agent.secret] = path;
    }
  }
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1)));
}

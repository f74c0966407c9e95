import { monitorIntervalDefault, proxyDefaults, type Config } from "../config/schema/config.js";
import type { HostModel, Model } from "./model.js";
import { flattenTemplate } from "../config/merge-templates.js";
import { resolveTemplate } from "./resolve-template.js";

/** Where secrets appear inside every sandbox (read-only bind of /run/forage-secrets/<sandbox>). */
export const secretsMountPath = "/run/secrets";

/**
 * Turns a validated config into the model: defaults applied, templates flattened and sorted.
 *
 * @example resolveModel(config, "forage.yaml").templates.map((t) => t.name) // ["base", "trio"]
 */
export function resolveModel(config: Config, source: string): Model {
  const host = resolveHost(config);
  const templates = Object.keys(config.templates)
    .sort()
    .map((name) => resolveTemplate(name, flattenTemplate(config, name), host));
  // The proxy runs exactly when an agent goes by it (the config checks refused enable: false beside one).
  const proxyRuns = templates.some((template) => template.agents.some((agent) => agent.auth !== "wrapper"));
  return { source, host: { ...host, proxy: { ...host.proxy, enable: proxyRuns } }, templates };
}

function resolveHost(config: Config): HostModel {
  return {
    user: config.user,
    authorizedKeys: config.authorizedKeys.map((key) => key.trim()),
    secrets: Object.fromEntries(Object.entries(config.secrets).sort(([a], [b]) => a.localeCompare(b))),
    stateDir: config.stateDir,
    externalInterface: config.externalInterface ?? null,
    containerUsername: config.containerUsername,
    workspacePath: config.workspacePath,
    agentIdentity: config.agentIdentity ?? {},
    monitor: {
      enable: config.monitor.enable,
      interval: config.monitor.interval ?? monitorIntervalDefault,
      autoRestart: config.monitor.autoRestart,
    },
    proxy: {
      // Known once the templates are resolved (resolveModel).
      enable: false,
      port: config.proxy.port ?? proxyDefaults.port,
      url: config.proxy.url ?? null,
      rateLimit: {
        ...(config.proxy.rateLimit ?? proxyDefaults.rateLimit),
        tokens: config.proxy.rateLimit?.tokens ?? null,
      },
      auditLog: config.proxy.auditLog ?? null,
      auditLogMaxBytes: config.proxy.auditLogMaxBytes ?? proxyDefaults.auditLogMaxBytes,
      caFile: config.proxy.caFile ?? null,
      allowUpstreams: (config.proxy.allowUpstreams ?? []).map((url) => new URL(url).origin),
    },
    network: {
      base: config.network.base,
      upstreamResolver: config.network.upstreamResolver ?? null,
      admitPrivate: config.network.admitPrivate,
    },
    approvals: { deadline: config.approvals.deadline, notify: config.approvals.notify ?? null },
    stateVersion: config.stateVersion,
    secretsMountPath,
  };
}

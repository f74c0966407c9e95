import { effectiveAuth, inferProvider, presetBaseUrlEnv, providerPresets } from "../config/agent-api-defaults.js";
import type { Agent } from "../config/schema/agent.js";
import type { AgentModel } from "./model.js";

/**
 * The agent's auth mode and, unless it is "wrapper", its API as the proxy serves it. The config
 * checks ran first (`checkAgentApis`), so a proxied agent's provider is known.
 */
export function resolveAgentApi(agent: Agent, useProxy: boolean): Pick<AgentModel, "auth" | "api"> {
  const auth = effectiveAuth(agent, useProxy);
  if (auth === "wrapper") return { auth, api: null };
  const provider = agent.api?.provider ?? inferProvider(agent.package, agent.authEnvVar);
  if (provider === undefined) throw new Error(`internal: the provider of agent package ${agent.package} was not checked`);
  const preset = provider === "custom" ? undefined : providerPresets[provider];
  const upstream = agent.api?.upstream ?? preset?.upstream ?? "";
  const baseUrlEnv = agent.api?.baseUrlEnv ?? presetBaseUrlEnv(agent.package, provider);
  return {
    auth,
    api: {
      provider,
      upstream: upstream.replace(/\/+$/, ""),
      header: agent.api?.header ?? preset?.header ?? "",
      value: agent.api?.value ?? preset?.value ?? "{key}",
      baseUrlEnv: Object.fromEntries(Object.entries(baseUrlEnv).sort(([a], [b]) => (a < b ? -1 : 1))),
      hosts: agent.api?.hosts ?? [hostOf(upstream)],
    },
  };
}

/** "https://api.example.com:8443/v1" → "api.example.com:8443"; the default port is left out. */
function hostOf(url: string): string {
  return new URL(url).host;
}

import { effectiveAuth, inferProvider, presetBaseUrlEnv, providerPresets } from "../config/agent-api-defaults.js";
import { loginFlavorOf, loginPresets } from "../config/agent-logins.js";
import type { Agent } from "../config/schema/agent.js";
import type { AgentModel, LoginModel } from "./model.js";

/**
 * The agent's auth mode and, unless it is "wrapper", its API as the proxy serves it. The config
 * checks ran first (`checkAgentApis`), so a proxied agent's provider is known.
 */
export function resolveAgentApi(agent: Agent, useProxy: boolean): Pick<AgentModel, "auth" | "api" | "login"> {
  const auth = effectiveAuth(agent, useProxy);
  const login = resolveLogin(agent);
  if (auth === "wrapper") return { auth, api: null, login };
  if (login !== null) return { auth, api: loginApi(agent, login), login };
  const provider = agent.api?.provider ?? inferProvider(agent.package, agent.authEnvVar);
  if (provider === undefined)
    throw new Error(`internal: the provider of agent package ${agent.package} was not checked`);
  const preset = provider === "custom" ? undefined : providerPresets[provider];
  const upstream = agent.api?.upstream ?? preset?.upstream ?? "";
  const baseUrlEnv = agent.api?.baseUrlEnv ?? presetBaseUrlEnv(agent.package, provider);
  return {
    auth,
    login,
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

/** The agent's login with its defaults, or null (the schema checked that the package has one). */
function resolveLogin(agent: Agent): LoginModel | null {
  if (agent.login === undefined) return null;
  const flavor = loginFlavorOf(agent.package);
  if (flavor === undefined) throw new Error(`internal: the login of agent package ${agent.package} was not checked`);
  return { flavor, kind: agent.login, tokenUrl: agent.api?.tokenUrl ?? loginPresets[flavor].tokenUrl };
}

/** A proxied login's API: its program's own (or api.upstream), the token as a Bearer credential. */
function loginApi(agent: Agent, login: LoginModel): NonNullable<AgentModel["api"]> {
  const preset = loginPresets[login.flavor];
  const upstream = (agent.api?.upstream ?? preset.upstream).replace(/\/+$/, "");
  return {
    provider: preset.provider,
    upstream,
    header: "authorization",
    value: "Bearer {key}",
    baseUrlEnv: { ...preset.baseUrlEnv },
    hosts: [hostOf(upstream)],
  };
}

/** "https://api.example.com:8443/v1" → "api.example.com:8443"; the default port is left out. */
function hostOf(url: string): string {
  return new URL(url).host;
}

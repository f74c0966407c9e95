import { effectiveAuth, inferProvider } from "./agent-api-defaults.js";
import { flattenTemplate } from "./merge-templates.js";
import type { Config } from "./schema/config.js";
import type { SchemaProblem } from "./zod-issues.js";

/**
 * Checks what the proxy needs of each proxied agent (auth proxy or placeholder), on templates with
 * `extends` flattened (useProxy and agents may be inherited): its provider is known, a custom one
 * says where and how, and one secret is given to a template's agents in one way only: a secret
 * mounted for one agent ("wrapper") would be in the sandbox whatever the others do.
 * Runs only when `extends` is sound (no cycles, no unknown parents).
 */
export function checkAgentApis(config: Config): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  for (const templateName of Object.keys(config.templates)) {
    const template = flattenTemplate(config, templateName);
    const ownAgents = config.templates[templateName]?.agents ?? {};
    const modeBySecret = new Map<string, { agent: string; auth: string }>();
    for (const [agentName, agent] of Object.entries(template.agents ?? {})) {
      const base =
        agentName in ownAgents ? ["templates", templateName, "agents", agentName] : ["templates", templateName];
      const subject = agentName in ownAgents ? `agent "${agentName}"` : `agent "${agentName}" (inherited)`;
      const auth = effectiveAuth(agent, template.useProxy ?? false);
      if (agent.secretName !== undefined) {
        const first = modeBySecret.get(agent.secretName);
        if (first === undefined) modeBySecret.set(agent.secretName, { agent: agentName, auth });
        else if (first.auth !== auth) {
          problems.push({
            path: [...base, "auth"],
            message: `${subject} gets secret "${agent.secretName}" by ${auth} but agent "${first.agent}" by ${first.auth}: one template gives a secret one way (a mounted key is in the sandbox for all); use the same auth or another secret`,
          });
        }
      }
      if (auth === "wrapper") continue;
      if (config.proxy.url !== undefined) {
        problems.push({
          path: [...base, "auth"],
          message: `${subject} uses auth ${auth}, which needs the built-in proxy on the sandbox's own link (it tells sandboxes apart by their address): remove proxy.url, or use auth wrapper`,
        });
      }
      // A login's API is its program's own (agent-logins.ts).
      if (agent.login !== undefined) continue;
      const provider = agent.api?.provider ?? inferProvider(agent.package, agent.authEnvVar);
      if (provider === undefined) {
        problems.push({
          path: [...base, "api", "provider"],
          message: `${subject}: cannot tell which API "${agent.package}" with ${agent.authEnvVar ?? "no authEnvVar"} talks to: set api.provider (anthropic, openai, google or custom)`,
        });
      } else if (provider === "custom") {
        const missing = (["upstream", "header", "baseUrlEnv"] as const).filter(
          (field) => agent.api?.[field] === undefined,
        );
        if (missing.length > 0) {
          problems.push({
            path: [...base, "api"],
            message: `${subject}: a custom provider needs ${missing.map((field) => `api.${field}`).join(", ")} (where to send, which header carries the key, which variables point the agent at the proxy)`,
          });
        }
      }
    }
  }
  return problems;
}

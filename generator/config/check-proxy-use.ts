import { effectiveAuth } from "./agent-api-defaults.js";
import { inherits, proxiedAgents, templateNames, type FlatTemplate } from "./proxied-agents.js";
import type { Config } from "./schema/config.js";
import type { SchemaProblem } from "./zod-issues.js";

/**
 * Options that only the API proxy reads, written where it serves nobody: refused, each at its key
 * with the reason (an option is never accepted and ignored). A value written in a template counts
 * as read when it reaches, unchanged, a template (itself or one extending it) whose agents use the
 * proxy. Runs on sound `extends` (flattened templates).
 */
export function checkProxyUse(config: Config, flat: readonly FlatTemplate[]): SchemaProblem[] {
  return [...unreadAgentApis(config, flat), ...unservedProxyFilters(config, flat), ...disabledProxy(config, flat)];
}

/**
 * An agent without its own auth goes by the proxy only where useProxy is on: its `api` is read
 * nowhere when every template it reaches leaves useProxy off. (What the agent alone decides is
 * checked by the schema: agentApiProblems.)
 */
function unreadAgentApis(config: Config, flat: readonly FlatTemplate[]): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  for (const [templateName, template] of Object.entries(config.templates)) {
    for (const [agentName, agent] of Object.entries(template.agents ?? {})) {
      if (
        agent.api === undefined ||
        agent.auth !== undefined ||
        (agent.secretName === undefined && agent.login === undefined)
      )
        continue;
      const reached = flat.filter((each) => each.template.agents?.[agentName] === agent);
      if (reached.some((each) => effectiveAuth(agent, each.template.useProxy ?? false) !== "wrapper")) continue;
      problems.push({
        path: ["templates", templateName, "agents", agentName, "api"],
        atKey: true,
        message: `api says how the API proxy reaches agent "${agentName}"'s API, and the agent goes by auth "wrapper" (no auth of its own, and useProxy is off in ${templateNames(reached)}), so nothing reads it: set auth "proxy" (or useProxy: true), or remove api`,
      });
    }
  }
  return problems;
}

/** proxyFilter limits what the proxy forwards for a template's agents: it needs one that uses the proxy. */
function unservedProxyFilters(config: Config, flat: readonly FlatTemplate[]): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  for (const [templateName, template] of Object.entries(config.templates)) {
    const filter = template.proxyFilter;
    if (filter === undefined) continue;
    const reached = flat.filter(
      (each) => each.template.proxyFilter === filter && inherits(config, each.name, templateName),
    );
    if (reached.some((each) => proxiedAgents(each.template).length > 0)) continue;
    problems.push({
      path: ["templates", templateName, "proxyFilter"],
      atKey: true,
      message: `proxyFilter limits what the API proxy forwards for the agents of ${templateNames(reached)}, and none of them goes by the proxy (auth "proxy" or "placeholder", or an oauth login): remove proxyFilter, or put an agent with a key behind the proxy (auth "proxy", or useProxy: true)`,
    });
  }
  return problems;
}

/** The proxy runs whenever an agent goes by it: `enable: false` beside one cannot be honoured. */
function disabledProxy(config: Config, flat: readonly FlatTemplate[]): SchemaProblem[] {
  if (config.proxy.enable !== false) return [];
  const users = flat.flatMap((each) =>
    proxiedAgents(each.template).map((agent) => `agent "${agent}" of template "${each.name}"`),
  );
  if (users.length === 0) return [];
  const more = users.length > 1 ? ` (and ${users.length - 1} more)` : "";
  return [
    {
      path: ["proxy", "enable"],
      message: `the API proxy must run: ${users[0]}${more} goes by it (auth "proxy" or "placeholder", or an oauth login); remove proxy.enable: false (the proxy runs exactly when an agent needs it), or give those agents auth "wrapper"`,
    },
  ];
}

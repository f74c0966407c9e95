import { inherits, proxiedAgents, type FlatTemplate } from "./proxied-agents.js";
import type { Config } from "./schema/config.js";
import type { SchemaProblem } from "./zod-issues.js";

/**
 * Options written where they change nothing, said so in a note rather than refused: `useProxy`
 * is the reference's and loads as it did there (its configs set it beside agents that log in with
 * hostConfigDir, which have no key to proxy), and `proxy.enable: true` is what a config with a
 * proxied agent means anyway, so one whose agents were just moved to auth "wrapper" keeps loading.
 * Neither changes what runs: no agent's auth, no proxy. Runs on sound `extends`.
 */
export function effectNotes(config: Config, flat: readonly FlatTemplate[]): SchemaProblem[] {
  const notes: SchemaProblem[] = [];
  if (config.proxy.enable === true && flat.every((each) => proxiedAgents(each.template).length === 0)) {
    notes.push({
      path: ["proxy", "enable"],
      atKey: true,
      message:
        'proxy.enable has no effect: no agent goes by the API proxy (auth "proxy" or "placeholder", or an oauth login), so it has nobody to serve and does not run; remove it, or put an agent with a key behind the proxy',
    });
  }
  for (const [templateName, template] of Object.entries(config.templates)) {
    if (template.useProxy !== true) continue;
    const reached = flat.filter((each) => each.template.useProxy === true && inherits(config, each.name, templateName));
    if (reached.some((each) => Object.values(each.template.agents ?? {}).some(defaultsToProxy))) continue;
    const others = reached.length > 1 ? " or of the templates extending it" : "";
    notes.push({
      path: ["templates", templateName, "useProxy"],
      atKey: true,
      message: `useProxy has no effect here: it makes auth "proxy" the default of agents with a key (secretName) or a login, and no agent of this template${others} has one without its own auth; remove it, or give an agent a key or a login`,
    });
  }
  return notes;
}

/** An agent whose auth useProxy decides: a key or a token login, and no auth of its own (an oauth login always goes by the proxy). */
function defaultsToProxy(agent: { auth?: string | undefined; secretName?: string | undefined; login?: string | undefined }): boolean {
  return agent.auth === undefined && agent.login !== "oauth" && (agent.secretName !== undefined || agent.login !== undefined);
}

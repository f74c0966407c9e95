import { effectiveAuth } from "./agent-api-defaults.js";
import { flattenTemplate } from "./merge-templates.js";
import type { Config } from "./schema/config.js";
import type { Template } from "./schema/template.js";
import { parentsOf } from "./template-parents.js";

/** One template as its sandboxes get it: `extends` flattened. */
export interface FlatTemplate {
  name: string;
  template: Template;
}

/** Every template flattened, in the config's order (`extends` must be sound: no cycles, no unknown parents). */
export function flattenAll(config: Config): FlatTemplate[] {
  return Object.keys(config.templates).map((name) => ({ name, template: flattenTemplate(config, name) }));
}

/** The names of a flattened template's agents that go by the API proxy (auth "proxy" or "placeholder", an oauth login). */
export function proxiedAgents(template: Template): string[] {
  return Object.entries(template.agents ?? {})
    .filter(([, agent]) => effectiveAuth(agent, template.useProxy ?? false) !== "wrapper")
    .map(([name]) => name);
}

/**
 * Whether `name` is `ancestor` or extends it, directly or through others: the templates a value
 * written in `ancestor` may reach.
 *
 * @example inherits(config, "claude-offline", "claude") // true when claude-offline extends claude
 */
export function inherits(config: Config, name: string, ancestor: string): boolean {
  if (name === ancestor) return true;
  return parentsOf(config.templates[name]?.extends).some((parent) => inherits(config, parent, ancestor));
}

/** How messages name the templates a value reaches: 'template "a"' or 'templates "a", "b"'. */
export function templateNames(templates: readonly FlatTemplate[]): string {
  const quoted = templates.map((each) => `"${each.name}"`);
  return quoted.length === 1 ? `template ${quoted[0]}` : `templates ${quoted.join(", ")}`;
}

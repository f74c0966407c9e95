import type { Config } from "./schema/config.js";
import type { Template } from "./schema/template.js";
import { parentsOf } from "./template-parents.js";

/**
 * Flattens `extends`: parents first (left to right), then the template itself. Scalars and lists
 * are replaced by the later value (so a child can narrow an allowlist); `agents`,
 * `mcp.servers`, `workspace.mounts`, `resourceLimits`, `agentIdentity`, `context` (and its skills) and a restricted
 * network object merge by key.
 * `extends` was checked for existence and cycles before this runs.
 */
export function flattenTemplate(config: Config, name: string): Template {
  const template = config.templates[name];
  if (template === undefined) throw new Error(`internal: template ${name} vanished after validation`);
  const inherited = parentsOf(template.extends).map((parent) => flattenTemplate(config, parent));
  const merged = [...inherited, template].reduce(mergeTemplate, {} as Template);
  delete merged.extends;
  return merged;
}

function mergeTemplate(base: Template, next: Template): Template {
  const merged: Template = { ...base, ...next };
  if (base.agents !== undefined || next.agents !== undefined) merged.agents = { ...base.agents, ...next.agents };
  if (base.mcp !== undefined || next.mcp !== undefined)
    merged.mcp = { servers: { ...base.mcp?.servers, ...next.mcp?.servers } };
  if (base.resourceLimits !== undefined || next.resourceLimits !== undefined) {
    merged.resourceLimits = { ...base.resourceLimits, ...next.resourceLimits };
  }
  if (base.agentIdentity !== undefined || next.agentIdentity !== undefined) {
    merged.agentIdentity = { ...base.agentIdentity, ...next.agentIdentity };
  }
  if (base.workspace !== undefined || next.workspace !== undefined) {
    merged.workspace = { ...base.workspace, ...next.workspace };
    const mounts = { ...base.workspace?.mounts, ...next.workspace?.mounts };
    if (Object.keys(mounts).length > 0) merged.workspace.mounts = mounts;
  }
  if (base.context !== undefined && next.context !== undefined) {
    merged.context = { ...base.context, ...next.context };
    const skills = { ...base.context.skills, ...next.context.skills };
    if (Object.keys(skills).length > 0) merged.context.skills = skills;
  }
  // A child that stays restricted narrows or adds to its parent's allow and sni; one that changes
  // the mode replaces the network whole (a parent's allow and sni mean nothing in another mode).
  if (typeof base.network === "object" && typeof next.network === "object" && next.network.mode === "restricted") {
    merged.network = { ...base.network, ...next.network };
  }
  return merged;
}

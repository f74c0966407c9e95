import type { FlatTemplate } from "./proxied-agents.js";
import type { Config } from "./schema/config.js";
import type { SchemaProblem } from "./zod-issues.js";

/**
 * Claude Code's permissions become the sandbox's managed settings, one file for the whole sandbox
 * (/etc/claude-code/managed-settings.json): two agents of a template with different permissions
 * would leave one agent's rules unused. Refused at the second agent, with the fix. Runs on sound
 * `extends` (flattened templates), so inherited agents count.
 */
export function checkPermissions(config: Config, flat: readonly FlatTemplate[]): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  for (const { name, template } of flat) {
    const given = Object.entries(template.agents ?? {}).filter(([, agent]) => agent.permissions !== null && agent.permissions !== undefined);
    const [first, ...others] = given;
    if (first === undefined) continue;
    for (const [agentName, agent] of others) {
      if (JSON.stringify(agent.permissions) === JSON.stringify(first[1].permissions)) continue;
      const own = config.templates[name]?.agents?.[agentName] !== undefined;
      problems.push({
        path: own ? ["templates", name, "agents", agentName, "permissions"] : ["templates", name],
        message: `agents "${first[0]}" and "${agentName}"${own ? "" : " (inherited)"} have different permissions, but a sandbox has one set of Claude Code managed settings: give them the same permissions, or put them in separate templates`,
      });
    }
  }
  return problems;
}

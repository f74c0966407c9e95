import type { FlatTemplate } from "./proxied-agents.js";
import type { Config } from "./schema/config.js";
import type { SchemaProblem } from "./zod-issues.js";

/**
 * What a stdio MCP server names is there and fit for it: its secrets exist (they become its
 * environment), and its template is another one, with no agents (their keys would sit beside the
 * server's) and no MCP servers of its own (a server's sandbox starts no further sandboxes). Said
 * at the server that names them; runs on sound `extends`.
 */
export function checkMcpServers(config: Config, flat: readonly FlatTemplate[]): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  const byName = new Map(flat.map((each) => [each.name, each.template]));
  for (const [templateName, template] of Object.entries(config.templates))
    for (const [serverName, server] of Object.entries(template.mcp?.servers ?? {})) {
      const at = ["templates", templateName, "mcp", "servers", serverName];
      for (const [variable, secret] of Object.entries(server.env ?? {}))
        if (!(secret in config.secrets))
          problems.push({
            path: [...at, "env", variable],
            message: `secret "${secret}" is not defined: add it under \`secrets\` (name → host file path)`,
          });
      if (server.template === undefined) continue;
      const why = unfitTemplate(templateName, server.template, byName.get(server.template));
      if (why !== undefined) problems.push({ path: [...at, "template"], message: why });
    }
  return problems;
}

function unfitTemplate(
  user: string,
  name: string,
  template: Config["templates"][string] | undefined,
): string | undefined {
  if (template === undefined) return `template "${name}" does not exist: define it under \`templates\``;
  if (name === user)
    return `a server's sandbox is made from another template than the agent's: define one for it (its network allow list, packages)`;
  if (Object.keys(template.agents ?? {}).length > 0)
    return `template "${name}" has agents: a server's sandbox runs the server alone (agents' keys would sit beside its secrets); use a template without agents`;
  if (Object.keys(template.mcp?.servers ?? {}).length > 0)
    return `template "${name}" has MCP servers of its own: a server's sandbox starts no sandboxes; use a template without mcp`;
  return undefined;
}

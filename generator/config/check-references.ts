import { checkAgentApis } from "./check-agent-apis.js";
import { checkProxyUse } from "./check-proxy-use.js";
import { checkPermissions } from "./check-permissions.js";
import { checkWorkspaceUse } from "./check-workspace-use.js";
import { checkPoolUse } from "./check-pool-use.js";
import { checkMcpServers } from "./check-mcp-servers.js";
import { flattenAll } from "./proxied-agents.js";
import type { Config } from "./schema/config.js";
import { beadsDefaults } from "./schema/workspace.js";
import { checkExtends } from "./check-extends.js";
import type { SchemaProblem } from "./zod-issues.js";

/**
 * Cross-references the schema cannot see: secrets named by agents exist, `extends` names existing
 * templates without cycles, what the proxy needs is there and what only it reads is read by it.
 * Runs only on schema-valid configs; reports every problem.
 */
export function checkReferences(config: Config): SchemaProblem[] {
  const extendsProblems = checkExtends(config);
  // Agent APIs and the proxy's options are checked on flattened templates, which needs sound `extends`.
  const flat = extendsProblems.length === 0 ? flattenAll(config) : [];
  const apiProblems =
    extendsProblems.length === 0
      ? [
          ...checkAgentApis(config),
          ...checkProxyUse(config, flat),
          ...checkPermissions(config, flat),
          ...checkWorkspaceUse(config, flat),
          ...checkPoolUse(config, flat),
          ...checkMcpServers(config, flat),
        ]
      : [];
  return [...checkSecrets(config), ...extendsProblems, ...checkMounts(config), ...apiProblems];
}

/** Two mounts at one path would shadow each other; the main workspace path is taken already. */
function checkMounts(config: Config): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  for (const [templateName, template] of Object.entries(config.templates)) {
    const mounts = Object.entries(template.workspace?.mounts ?? {});
    const beads = template.workspace?.useBeads;
    if (beads?.enable === true) {
      if (mounts.some(([name]) => name === "beads")) {
        problems.push({
          path: ["templates", templateName, "workspace", "mounts", "beads"],
          message: 'the mount name "beads" is taken by useBeads: rename this mount or disable useBeads',
        });
      }
      mounts.push(["useBeads", { containerPath: beads.containerPath ?? beadsDefaults.containerPath, readOnly: false }]);
    }
    const seen = new Map<string, string>([[config.workspacePath, "the workspace (workspacePath)"]]);
    for (const [name, mount] of mounts) {
      const owner = seen.get(mount.containerPath);
      const path =
        name === "useBeads"
          ? ["templates", templateName, "workspace", "useBeads", "containerPath"]
          : ["templates", templateName, "workspace", "mounts", name, "containerPath"];
      if (owner !== undefined)
        problems.push({
          path,
          message: `"${mount.containerPath}" is already used by ${owner}: choose another containerPath`,
        });
      else seen.set(mount.containerPath, `mount "${name}"`);
    }
  }
  return problems;
}

function checkSecrets(config: Config): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  for (const [templateName, template] of Object.entries(config.templates)) {
    for (const [agentName, agent] of Object.entries(template.agents ?? {})) {
      if (agent.secretName !== undefined && !(agent.secretName in config.secrets)) {
        problems.push({
          path: ["templates", templateName, "agents", agentName, "secretName"],
          message: `secret "${agent.secretName}" is not defined: add it under \`secrets\` (name → host file path)`,
        });
      }
    }
    for (const [serverName, server] of Object.entries(template.mcp?.servers ?? {}))
      if (server.secret !== undefined && !(server.secret in config.secrets))
        problems.push({
          path: ["templates", templateName, "mcp", "servers", serverName, "secret"],
          message: `secret "${server.secret}" is not defined: add it under \`secrets\` (name → host file path)`,
        });
  }
  return problems;
}

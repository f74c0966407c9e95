import type { RuntimeContext } from "../core/context.js";
import { mcpGateUrl } from "../gates/mcp-gate/agent-mcp-config.js";
import type { SandboxMetadata } from "../state/metadata.js";
import type { McpView } from "./sandbox-view.js";
import { serverSandboxName } from "../sandbox/mcp-server-sandboxes.js";

/** The template's MCP servers for this sandbox, with the tools approved --always for it; null without any. */
export function mcpViewOf(context: RuntimeContext, metadata: SandboxMetadata): McpView | null {
  const template = context.settings.templates.find((t) => t.name === metadata.template);
  if (template === undefined || template.mcp.servers.length === 0) return null;
  return {
    servers: template.mcp.servers.map((server) => ({
      name: server.name,
      gateUrl: mcpGateUrl(context.settings.host, metadata.slot, server.name),
      url: server.url,
      secret: server.secret,
      command: server.command,
      sandbox: server.command === null ? null : sandboxOf(metadata.name, server.name),
      env: server.env,
      ...server.tools,
      alwaysAllowed: metadata.mcpAlwaysAllowed?.[server.name] ?? [],
    })),
  };
}

/** A stdio server's sandbox's name, or null where the agent's name leaves no room for one (up refuses to make it). */
function sandboxOf(agent: string, server: string): string | null {
  try {
    return serverSandboxName(agent, server);
  } catch {
    return null;
  }
}

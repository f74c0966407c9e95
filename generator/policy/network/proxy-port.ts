import type { Model, TemplateModel } from "../../model/model.js";

/**
 * The API proxy port a template's sandboxes reach on their host end (its agents' APIs, and the MCP
 * gate at /_mcp/…), or null when no agent of it is behind the proxy and it has no MCP servers.
 */
export function templateProxyPort(model: Pick<Model, "host">, template: TemplateModel): number | null {
  const served = template.agents.some((agent) => agent.auth !== "wrapper") || template.mcp.servers.length > 0;
  return served ? model.host.proxy.port : null;
}

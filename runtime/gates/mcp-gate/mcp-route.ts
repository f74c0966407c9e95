import type { StdioServerLink } from "./stdio-link.js";
import type { ToolPolicy } from "./tool-policy.js";

/** What every server the gate relays to has: its name, what is masked in its answers, its tool policy. */
interface McpServerRouteBase {
  /** Its name in the template (`mcp.servers.<name>`): the sandbox reaches it at /_mcp/<name>. */
  name: string;
  /** What the gate masks in every answer: the token, and the header values that carry it (or a stdio server's secrets). */
  secrets: readonly string[];
  policy: ToolPolicy;
}

/**
 * A server reached over Streamable HTTP: where the gate sends its messages and what it adds to
 * them (the server's token: the host's, never the sandbox's). The sandbox names the server,
 * never the URL: every message goes to `url` exactly.
 */
export interface McpHttpRoute extends McpServerRouteBase {
  /** The server's Streamable HTTP endpoint. */
  url: URL;
  /** Headers the gate sets on every message to the server (values read from the host's secrets). */
  headers: Readonly<Record<string, string>>;
}

/** A stdio server, run by the gate in a sandbox of its own (stdio-link.ts). */
export interface McpStdioRoute extends McpServerRouteBase {
  link: StdioServerLink;
}

/** One MCP server a sandbox reaches through the gate. */
export type McpServerRoute = McpHttpRoute | McpStdioRoute;

/** What the gate knows of one sandbox: its name and its servers by name. */
export interface McpSandboxRoute {
  sandbox: string;
  servers: ReadonlyMap<string, McpServerRoute>;
}

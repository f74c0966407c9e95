import type { ToolPolicy } from "./tool-policy.js";

/**
 * One MCP server a sandbox reaches through the gate: where the gate sends its messages, what it
 * adds to them (the server's token: the host's, never the sandbox's), and which tools it lets
 * through. The sandbox names the server, never the URL: every message goes to `url` exactly.
 */
export interface McpServerRoute {
  /** Its name in the template (`mcp.servers.<name>`): the sandbox reaches it at /_mcp/<name>. */
  name: string;
  /** The server's Streamable HTTP endpoint. */
  url: URL;
  /** Headers the gate sets on every message to the server (values read from the host's secrets). */
  headers: Readonly<Record<string, string>>;
  /** What the gate masks in every answer: the token, and the header values that carry it. */
  secrets: readonly string[];
  policy: ToolPolicy;
}

/** What the gate knows of one sandbox: its name and its servers by name. */
export interface McpSandboxRoute {
  sandbox: string;
  servers: ReadonlyMap<string, McpServerRoute>;
}

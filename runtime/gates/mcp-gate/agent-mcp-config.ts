import type { HostModel, TemplateModel } from "../../../generator/model/model.js";
import { sandboxLink } from "../../../generator/policy/network/sandbox-link.js";

/** Where a sandbox reaches one of its MCP servers: the gate, on the proxy's port at its host end. */
export function mcpGateUrl(host: Pick<HostModel, "proxy" | "network">, slot: number, server: string): string {
  return `http://${sandboxLink(slot, host.network.base).hostAddress}:${host.proxy.port}/_mcp/${server}`;
}

/**
 * The MCP configuration of each agent that reads one, in the agent's home (path → text), every
 * server pointing at the gate: Claude Code (`~/.claude.json`, user scope, so no project approval
 * is asked), Codex (`~/.codex/config.toml`), Gemini CLI (`~/.gemini/settings.json`, `httpUrl`,
 * which old and new releases read as Streamable HTTP) and OpenCode
 * (`~/.config/opencode/opencode.json`). No token is in any of them: the gate adds it. JSON files
 * another part of the home seed writes too are merged (mergeHomeFiles).
 */
export function mcpHomeFiles(
  template: Pick<TemplateModel, "mcp">,
  host: Pick<HostModel, "proxy" | "network">,
  slot: number,
): Record<string, string> {
  const servers = template.mcp.servers.map(({ name }) => ({ name, url: mcpGateUrl(host, slot, name) }));
  if (servers.length === 0) return {};
  const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;
  const byName = <T>(entry: (url: string) => T): Record<string, T> =>
    Object.fromEntries(servers.map(({ name, url }) => [name, entry(url)]));
  return {
    ".claude.json": json({ mcpServers: byName((url) => ({ type: "http", url })) }),
    ".gemini/settings.json": json({ mcpServers: byName((httpUrl) => ({ httpUrl })) }),
    ".config/opencode/opencode.json": json({
      mcp: byName((url) => ({ type: "remote", url, enabled: true, oauth: false })),
    }),
    // Server names are bare TOML keys ([a-z][a-z0-9-]*); the URL a TOML basic string (JSON's escapes are TOML's).
    ".codex/config.toml": servers
      .map(({ name, url }) => `[mcp_servers.${name}]\nurl = ${JSON.stringify(url)}\n`)
      .join("\n"),
  };
}

/**
 * Home files from several writers as one set: a path two of them write as JSON objects (Claude
 * Code's `.claude.json` holds a login's onboarding mark and the MCP servers) is their keys merged,
 * the later writer's winning; any other clash is a bug.
 */
export function mergeHomeFiles(...sets: Record<string, string>[]): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const set of sets)
    for (const [path, text] of Object.entries(set)) {
      const before = merged[path];
      merged[path] = before === undefined ? text : mergedJson(path, before, text);
    }
  return merged;
}

function mergedJson(path: string, first: string, second: string): string {
  const [a, b] = [JSON.parse(first) as unknown, JSON.parse(second) as unknown];
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === "object" && value !== null && !Array.isArray(value);
  if (!isObject(a) || !isObject(b)) throw new Error(`internal: two writers of ${path} in the home seed`);
  return `${JSON.stringify({ ...a, ...b }, null, 2)}\n`;
}

import type { AgentModel, HostModel, TemplateModel } from "../../generator/model/model.js";
import type { NetworkPolicy } from "../../generator/policy/network/policy-schema.js";
import { denialsMountPath } from "../gates/network/denials.js";
import { mcpGateUrl } from "../gates/mcp-gate/agent-mcp-config.js";
import type { SandboxMetadata, WorkspaceMount } from "../state/metadata.js";

/** What the context templates (templates/context/) are rendered from: plain data, all of it prose-safe. */
export interface ContextView {
  sandbox: string;
  template: { name: string; description: string };
  workspace: WorkspaceView;
  mounts: (WorkspaceView & { name: string; readOnly: boolean })[];
  readOnlyWorkspace: boolean;
  network: {
    mode: NetworkPolicy["mode"];
    none: boolean;
    restricted: boolean;
    full: boolean;
    allow: string[];
    deny: string[];
    sni: boolean;
    denialsFile: string;
  };
  identity: { gitUser: string | null; gitEmail: string | null; sshKey: boolean };
  agents: { name: string; credential: string }[];
  proxied: boolean;
  /** The template's MCP servers, as the gate reaches them and judges their tools (patterns as written, shown in backticks). */
  mcp: { name: string; url: string; allowed: string; asked: string; refused: string | null }[];
  hasMcp: boolean;
  user: string;
  hasFlake: boolean;
  fragments: string[];
}

interface WorkspaceView {
  path: string;
  mode: WorkspaceMount["mode"];
  jj: boolean;
  git: boolean;
  direct: boolean;
  /** The jj workspace's name or the git worktree's branch. */
  vcsName: string | null;
}

/** The context of one sandbox as it starts: its metadata (policy in force), template and host. */
export function contextView(
  metadata: SandboxMetadata,
  template: TemplateModel,
  host: HostModel,
  hasFlake: boolean,
): ContextView {
  const policy = metadata.network ?? {
    mode: template.network.mode,
    allow: template.network.allow.map((rule) => rule.entry),
    deny: [],
    sni: template.network.sni,
  };
  return {
    sandbox: metadata.name,
    template: { name: template.name, description: template.description },
    workspace: workspaceView(host.workspacePath, metadata.workspace),
    mounts: metadata.mounts.map((mount) => ({
      ...workspaceView(mount.containerPath, mount),
      name: mount.name,
      readOnly: mount.readOnly,
    })),
    readOnlyWorkspace: template.readOnlyWorkspace,
    network: {
      ...policy,
      none: policy.mode === "none",
      restricted: policy.mode === "restricted",
      full: policy.mode === "full",
      denialsFile: `${denialsMountPath}/denials.jsonl`,
    },
    identity: {
      gitUser: metadata.agentIdentity.gitUser ?? null,
      gitEmail: metadata.agentIdentity.gitEmail ?? null,
      sshKey: metadata.agentIdentity.sshKeyPath !== undefined,
    },
    agents: template.agents.map((agent) => ({ name: agent.name, credential: credentialSentence(agent) })),
    proxied: template.agents.some((agent) => agent.auth !== "wrapper"),
    mcp: template.mcp.servers.map((server) => mcpServerView(server, mcpGateUrl(host, metadata.slot, server.name))),
    hasMcp: template.mcp.servers.length > 0,
    user: host.containerUsername,
    hasFlake,
    fragments: template.context.fragments,
  };
}

function workspaceView(path: string, mount: WorkspaceMount): WorkspaceView {
  return {
    path,
    mode: mount.mode,
    jj: mount.mode === "jj",
    git: mount.mode === "git-worktree",
    direct: mount.mode === "direct",
    vcsName: mount.vcsName ?? null,
  };
}

/** How an agent's key or login reaches it, in one sentence. */
function credentialSentence(agent: AgentModel): string {
  const what =
    agent.login !== null
      ? `its ${agent.login.kind === "token" ? "login token" : "subscription login"}`
      : agent.secret !== null
        ? "its API key"
        : null;
  if (what === null) return "needs no key";
  if (agent.auth === "wrapper") return `gets ${what} in its own process's environment only`;
  if (agent.auth === "placeholder")
    return `holds a random stand-in for ${what}; the host's proxy swaps in the real one only on requests to its API`;
  return `never sees ${what}: the host's API proxy adds it to the agent's requests, and the variable or file holding it inside is a stand-in`;
}

/** One MCP server's lists as sentences' parts: tool names and patterns in backticks (the prose engine escapes nothing: names are the template's). */
function mcpServerView(server: TemplateModel["mcp"]["servers"][number], url: string): ContextView["mcp"][number] {
  const listed = (patterns: readonly string[]): string => patterns.map((pattern) => `\`${pattern}\``).join(", ");
  const { allow, ask, deny } = server.tools;
  return {
    name: server.name,
    url,
    allowed: allow.length === 0 ? "none" : listed(allow),
    asked: ask.length === 0 ? "every tool not named here" : `${listed(ask)}, and every tool not named here`,
    refused: deny.length === 0 ? null : listed(deny),
  };
}

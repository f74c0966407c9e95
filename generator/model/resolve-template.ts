import type { Agent } from "../config/schema/agent.js";
import { splitPackagePath } from "../lib/package-path.js";
import type { Template } from "../config/schema/template.js";
import { beadsDefaults } from "../config/schema/workspace.js";
import { resolveSettings } from "../config/schema/defaulted-settings.js";
import { templateSettings } from "../config/schema/template-settings.js";
import { parseAllowEntry } from "./allow-rule.js";
import type { AgentModel, HostModel, MountModel, TemplateModel } from "./model.js";
import { resolveAgentApi } from "./resolve-agent-api.js";

/** Claude Code's built-in tools; `permissions.skipAll` allows all of them (reference behaviour). */
export const claudeBuiltinTools = [
  "Bash",
  "Edit",
  "Glob",
  "Grep",
  "NotebookEdit",
  "NotebookRead",
  "Read",
  "TodoRead",
  "TodoWrite",
  "WebFetch",
  "WebSearch",
  "Write",
];

/** Applies template defaults to a flattened template. */
export function resolveTemplate(name: string, template: Template, host: HostModel): TemplateModel {
  const settings = resolveSettings(templateSettings, template);
  const agents = Object.entries(template.agents ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([agentName, agent]) => resolveAgent(agentName, agent, host, settings.useProxy));
  const beads = template.workspace?.useBeads;
  const mounts = resolveMounts(template, settings.readOnlyWorkspace);
  return {
    name,
    ...settings,
    agents,
    // The beads package rides along with extraPackages so every package reaches the sandbox one way.
    extraPackages: uniquePaths([
      ...(template.extraPackages ?? []),
      ...(beads?.enable === true ? [beads.package ?? beadsDefaults.package] : []),
    ]),
    network: resolveNetwork(template.network),
    resourceLimits: resolveLimits(template.resourceLimits),
    agentIdentity: { ...host.agentIdentity, ...template.agentIdentity },
    mounts,
    unprotectedPaths: [...(template.workspace?.unprotected ?? [])].sort(),
    workspaceMaxSize: template.workspace?.maxSize ?? null,
    tmuxWindows: template.tmuxWindows ?? agents.map((agent) => ({ name: agent.name, command: agent.name })),
    sshAgent:
      template.sshAgent === undefined
        ? null
        : { keys: [...template.sshAgent.keys], confirm: template.sshAgent.confirm ?? true },
    // Writing pushGate turns it on (enable defaults to true); absent or enable: false, none.
    pushGate:
      template.pushGate === undefined || template.pushGate.enable === false
        ? null
        : { protectedBranches: template.pushGate.protectedBranches ?? null },
    mcp: {
      servers: Object.entries(template.mcp?.servers ?? {})
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([serverName, server]) => ({
          name: serverName,
          url: server.url ?? null,
          command: server.command === undefined ? null : [...server.command],
          template: server.template ?? null,
          env: Object.fromEntries(Object.entries(server.env ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))),
          workspace: server.workspace ?? null,
          secret: server.secret ?? null,
          header: server.header ?? "authorization",
          value: server.value ?? "Bearer {key}",
          tools: {
            allow: [...(server.tools?.allow ?? [])],
            ask: [...(server.tools?.ask ?? [])],
            deny: [...(server.tools?.deny ?? [])],
          },
        })),
    },
    proxyFilter: {
      methods: [...(template.proxyFilter?.methods ?? ["GET", "HEAD", "POST"])].sort(),
      pathPrefixes: [...(template.proxyFilter?.pathPrefixes ?? ["/"])].sort(),
      maxRequestBytes: template.proxyFilter?.maxRequestBytes ?? 32 * 1024 * 1024,
    },
    seccomp: { allow: [...new Set(template.seccomp?.allow ?? [])].sort() },
    context: {
      enable: template.context?.enable ?? true,
      fragments: template.context?.fragments ?? [],
      skills: Object.entries(template.context?.skills ?? {})
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([name, skill]) => ({ name, ...skill })),
    },
  };
}

/**
 * Every sandbox is limited unless its template lifts a limit with "infinity" (null in the model):
 * without one, /tmp, /dev/shm and a fork bomb could take the host's RAM and pids. 4G holds an agent,
 * a language server and a build; 4096 tasks hold a parallel build's threads, far below pid_max.
 */
function resolveLimits(limits: Template["resourceLimits"]): TemplateModel["resourceLimits"] {
  const memoryMax = limits?.memoryMax ?? "4G";
  const tasksMax = limits?.tasksMax ?? 4096;
  return {
    cpuQuota: limits?.cpuQuota ?? null,
    memoryMax: memoryMax === "infinity" ? null : memoryMax,
    tasksMax: tasksMax === "infinity" ? null : tasksMax,
  };
}

function resolveAgent(name: string, agent: Agent, host: HostModel, useProxy: boolean): AgentModel {
  const secret =
    agent.secretName !== undefined && agent.authEnvVar !== undefined
      ? {
          name: agent.secretName,
          hostPath: host.secrets[agent.secretName] ?? "",
          containerPath: `${host.secretsMountPath}/${agent.secretName}`,
          envVar: agent.authEnvVar,
        }
      : null;
  return {
    name,
    package: splitPackagePath(agent.package),
    executable: agent.executable ?? null,
    secret,
    hostConfigDir: agent.hostConfigDir ?? null,
    containerConfigDir: agent.containerConfigDir ?? defaultContainerConfigDir(agent.hostConfigDir, host),
    hostConfigDirReadOnly: agent.hostConfigDirReadOnly,
    permissions:
      agent.permissions === null
        ? null
        : agent.permissions.skipAll
          ? { allow: [...claudeBuiltinTools], deny: [] }
          : { allow: agent.permissions.allow, deny: agent.permissions.deny },
    ...resolveAgentApi(agent, useProxy),
  };
}

/** `~/.claude` → `/home/agent/.claude`; an absolute host path keeps its last segment. */
function defaultContainerConfigDir(hostConfigDir: string | undefined, host: HostModel): string | null {
  if (hostConfigDir === undefined) return null;
  const base = hostConfigDir.split("/").pop() ?? "";
  return `/home/${host.containerUsername}/${base}`;
}

function resolveNetwork(network: Template["network"]): TemplateModel["network"] {
  const spec = typeof network === "string" || network === undefined ? { mode: network ?? "none" } : network;
  const allow = spec.mode === "restricted" && "allow" in spec ? (spec.allow ?? []) : [];
  return {
    mode: spec.mode,
    allow: allow.map(parseAllowEntry),
    sni: ("sni" in spec && spec.sni) === true,
    ask: ("ask" in spec && spec.ask) === true,
  };
}

function resolveMounts(template: Template, readOnlyWorkspace: boolean): MountModel[] {
  const mounts: MountModel[] = Object.entries(template.workspace?.mounts ?? {}).map(([name, mount]) => ({
    name,
    containerPath: mount.containerPath,
    hostPath: mount.hostPath ?? null,
    repo: mount.repo ?? null,
    mode: mount.hostPath !== undefined ? "direct" : (mount.mode ?? null),
    branch: mount.branch ?? null,
    readOnly: (mount.readOnly ?? false) || readOnlyWorkspace,
  }));
  const beads = template.workspace?.useBeads;
  if (beads?.enable === true) {
    mounts.push({
      name: "beads",
      containerPath: beads.containerPath ?? beadsDefaults.containerPath,
      hostPath: null,
      repo: beads.repo ?? null,
      mode: "jj",
      branch: beads.branch ?? beadsDefaults.branch,
      readOnly: readOnlyWorkspace,
    });
  }
  return mounts.sort((a, b) => a.name.localeCompare(b.name));
}

function uniquePaths(refs: string[]): string[][] {
  return [...new Set(refs)].map(splitPackagePath);
}

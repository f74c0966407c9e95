import { agentPromptFiles } from "../../../generator/model/agent-prompt-files.js";
import type { TemplateModel } from "../../../generator/model/model.js";
import type { Bind } from "../../core/bind.js";
import type { RuntimeContext } from "../../core/context.js";
import { pathExists } from "../../core/path-exists.js";
import { agentLauncherPath } from "../../provision/assets.js";
import { resolveAgentPrograms } from "../../provision/host-programs.js";
import { identityKeyFile } from "../../provision/identity-key.js";
import { installSsh } from "../../provision/ssh-files.js";
import { proxyEnvFile } from "../../gates/api-proxy/sandbox-credentials.js";
import type { SandboxMetadata } from "../../state/metadata.js";
import type { Inside } from "../backend.js";
import { buildHostRoot } from "./host-root-files.js";

/** Host files a host-root sandbox reads (read-only) when they exist: CA certificates, alternatives. */
const optionalHostBinds = [
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/alternatives",
  "/etc/ld.so.cache",
  "/etc/localtime",
];

/**
 * Lays out a host root in `root` (its generated /etc, the agents' launchers, sshd's files when
 * the template has SSH) and returns what is bound into it read-only: the host's /usr, a few /etc
 * files, the agent launcher. The nspawn and gvisor runtimes' roots.
 */
export async function layOutHostRoot(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  root: string,
  template: TemplateModel,
): Promise<Bind[]> {
  const { host } = context.settings;
  const programs = await resolveAgentPrograms(template);
  const promptFiles = agentPromptFiles(template);
  await buildHostRoot(root, {
    hostname: metadata.name,
    user: { name: host.containerUsername, uid: metadata.uid, gid: metadata.gid },
    workspacePath: host.workspacePath,
    identityKey: metadata.secrets.includes(identityKeyFile) ? `${host.secretsMountPath}/${identityKeyFile}` : null,
    agents: template.agents.map((agent) => ({
      name: agent.name,
      program: programs.get(agent.name) ?? "",
      secretFile: agent.secret?.containerPath ?? null,
      envVar: agent.secret?.envVar ?? null,
      envFile:
        agent.auth === "wrapper" && agent.login === null ? null : proxyEnvFile(host.secretsMountPath, agent.name),
      promptFile: promptFiles[agent.name] ?? null,
    })),
  });
  if (template.ssh) await installSsh(context.paths, root, metadata, host.containerUsername);
  const present = await Promise.all(
    optionalHostBinds.map(async (path) => ((await pathExists(path)) ? path : undefined)),
  );
  return [
    { source: "/usr", target: "/usr", readOnly: true },
    ...present.filter((path) => path !== undefined).map((path) => ({ source: path, target: path, readOnly: true })),
    { source: agentLauncherPath(), target: "/opt/forage/bin/forage-agent", readOnly: true },
  ];
}

/** Inside a host root: the agent launchers first, then the host's /usr. */
export const hostRootInside: Inside = {
  path: () => "/opt/forage/bin:/usr/local/bin:/usr/bin:/bin",
  shell: "/bin/bash",
};

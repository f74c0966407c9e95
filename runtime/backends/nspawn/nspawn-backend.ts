import { agentPromptFiles } from "../../../generator/model/agent-prompt-files.js";
import type { TemplateModel } from "../../../generator/model/model.js";
import type { RuntimeContext } from "../../core/context.js";
import { buildHostRoot } from "../shared/host-root-files.js";
import { agentLauncherPath } from "../../provision/assets.js";
import { resolveAgentPrograms } from "../../provision/host-programs.js";
import { identityKeyFile } from "../../provision/identity-key.js";
import { installSsh } from "../../provision/ssh-files.js";
import { proxyEnvFile } from "../../proxy/sandbox-credentials.js";
import { enterArgv } from "../../seccomp/sandbox-filter.js";
import type { SandboxMetadata } from "../../state/metadata.js";
import type { Backend } from "../backend.js";
import { nspawnUnavailable } from "../shared/nspawn-available.js";
import { nspawnQueries, startNspawn, stopNspawn, type NspawnRoot, type RootLayout } from "./nspawn-sandbox.js";
import { hostRootGaps } from "../shared/host-root-gaps.js";
import { pathExists } from "../../core/path-exists.js";

/** Host files a host-root sandbox reads (read-only) when they exist: CA certificates, alternatives. */
const optionalHostBinds = [
  "/etc/ssl",
  "/etc/ca-certificates",
  "/etc/alternatives",
  "/etc/ld.so.cache",
  "/etc/localtime",
];

/** Host root: generated /etc, the host's /usr and a few /etc files read-only, the agent launcher. */
async function layOutHostRoot(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  root: string,
  template: TemplateModel,
): Promise<RootLayout> {
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
  return {
    binds: [
      { source: "/usr", target: "/usr", readOnly: true },
      ...present.filter((path) => path !== undefined).map((path) => ({ source: path, target: path, readOnly: true })),
      { source: agentLauncherPath(), target: "/opt/forage/bin/forage-agent", readOnly: true },
    ],
    payload: { kind: "placeholder", user: host.containerUsername, enter: enterArgv() },
    system: null,
  };
}

const hostRoot: NspawnRoot = { payload: "placeholder", layOut: layOutHostRoot };

/**
 * systemd-nspawn on a tmpfs root with the host's /usr read-only: any systemd Linux, no Nix. Its
 * payload waits under nspawn's stub init as the agent; forage-ctl opens the agent's session and
 * starts sshd in it.
 */
export const nspawnBackend: Backend = {
  name: "nspawn",
  capabilities: {
    nixosConfig: false,
    networkIsolation: true,
    ephemeralRoot: true,
    ssh: true,
    generatedFiles: true,
    resourceLimits: true,
    gracefulShutdown: true,
    pinnedBinds: true,
    ownInit: false,
  },
  inside: {
    // The agent launchers first, then the host's /usr.
    path: () => "/opt/forage/bin:/usr/local/bin:/usr/bin:/bin",
    shell: "/bin/bash",
  },
  describe: async () => "systemd-nspawn on a tmpfs root with the host's /usr read-only (any systemd Linux, no Nix)",
  unavailable: () => nspawnUnavailable(),
  // The agents' programs come from the host's /usr: a missing one is refused before anything is
  // made; what the host's /usr cannot give the template is said, never ignored in silence.
  async preflight(context, template) {
    await resolveAgentPrograms(template);
    for (const gap of hostRootGaps(template)) context.warn(gap);
  },
  start: (context, metadata, template) => startNspawn(context, metadata, template, hostRoot),
  stop: (context, metadata, graceSeconds) => stopNspawn(context, metadata, graceSeconds, hostRoot.payload),
  ...nspawnQueries,
};

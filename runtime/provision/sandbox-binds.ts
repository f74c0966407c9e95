import type { TemplateModel } from "../../generator/model/model.js";
import { join } from "node:path";
import { denialsMountPath } from "../gates/network/denials.js";
import { resolvConfName } from "../gates/network/sandbox-network.js";
import type { Bind } from "../core/bind.js";
import { sandboxNetworkPath, sandboxSecretsPath } from "../core/paths.js";
import { seccompBinds } from "../seccomp/sandbox-filter.js";
import type { SandboxMetadata } from "../state/metadata.js";
import { workspaceBinds } from "../workspaces/workspace-binds.js";
import { hostFoldersDir, recordStandIns } from "../workspaces/folder-users.js";
import { agentConfigBinds } from "./agent-config-binds.js";
import type { RuntimeContext } from "../core/context.js";
import { ownerHome } from "../core/owner-home.js";
import { contextBinds } from "../context/context-files.js";
import { sshAgentBinds } from "../gates/ssh-agent/sandbox-ssh-agent.js";
import { pushGateBinds } from "../gates/push-gate/sandbox-push-gate.js";
import { procMasks } from "./proc-masks.js";

/**
 * The binds every runtime gives a sandbox, whatever its root: the workspaces (primary first,
 * then mounts, stores and protected paths), the user's tmux config, the agents' config
 * directories, the network's denial records and resolver, the SSH agent's and push gate's sockets,
 * the masks over /proc files that would tell the agent about the host user's keys, and the
 * seccomp helper and program.
 * Secrets and the root's own files are the runtime's to add.
 */
export async function sandboxBinds(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  template: TemplateModel,
  runtime: { pinnedBinds: boolean },
): Promise<Bind[]> {
  return [...(await claimedBinds(context, metadata, template, runtime)), ...seccompBinds(context.paths, metadata.name)];
}

/**
 * sandboxBinds but the seccomp helper and program: everything that is the sandbox's own (its
 * user's, its name's), which a warm pool's member gets only when an `up` claims it (it has the
 * helper and program, the same for its template, from its start).
 */
export async function claimedBinds(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  template: TemplateModel,
  runtime: { pinnedBinds: boolean },
): Promise<Bind[]> {
  const { host } = context.settings;
  return [
    ...(await workspaceBinds(metadata, host.workspacePath, {
      readOnly: template.readOnlyWorkspace,
      unprotected: template.unprotectedPaths,
      pinned: runtime.pinnedBinds,
      madeStandIns: (folder, made) => recordStandIns(hostFoldersDir, folder, made),
    })),
    ...(metadata.muxConfig === null
      ? []
      : [{ source: metadata.muxConfig, target: `/home/${host.containerUsername}/.tmux.conf`, readOnly: true }]),
    ...(await agentConfigBinds(
      template,
      { home: await ownerHome(context), agentUser: host.containerUsername },
      context.warn,
    )),
    // What the network refused, so an agent can explain a failure (read-only: the guard writes it).
    { source: sandboxNetworkPath(context.paths, metadata.name), target: denialsMountPath, readOnly: true },
    // The only resolver is the sandbox's DNS filter, whatever the mode (it can change live);
    // read-only, so a NixOS system's resolvconf cannot replace it.
    {
      source: join(sandboxNetworkPath(context.paths, metadata.name), resolvConfName),
      target: "/etc/resolv.conf",
      readOnly: true,
    },
    // What agents are told about the sandbox: read-only, root's.
    ...contextBinds(context, metadata, template),
    // The host-side SSH agent's socket directory (root's; the socket the agent user's, 0600).
    ...(await sshAgentBinds(context, metadata)),
    // The push gate's socket directory (root's) and its relay, which the sandbox's git runs.
    ...(await pushGateBinds(context.paths, metadata)),
    ...procMasks,
  ];
}

/** The sandbox's secret copies, read-only at the secrets path (none: no bind). The runtimes' to add. */
export function secretsBinds(context: RuntimeContext, metadata: SandboxMetadata): Bind[] {
  if (metadata.secrets.length === 0) return [];
  const source = sandboxSecretsPath(context.paths, metadata.name);
  return [{ source, target: context.settings.host.secretsMountPath, readOnly: true }];
}

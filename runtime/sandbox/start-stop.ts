import { access } from "node:fs/promises";
import { join } from "node:path";
import type { TemplateModel } from "../../generator/model/model.js";
import { createSandboxCgroup, joinCgroupArgv, removeSandboxCgroup } from "../cgroups/sandbox-cgroup.js";
import { createLink, removeLink, sandboxLink } from "../network/sandbox-link.js";
import { findContainerByRoot, isOurContainer, spawnContainer, stopContainer } from "../nspawn/container-process.js";
import { buildHostRoot } from "../nspawn/host-root.js";
import { mountRoot, unmountRoot } from "../nspawn/root-mount.js";
import { rootPath, sandboxSecretsPath, metadataPath } from "../paths.js";
import { writeMetadata } from "../state/metadata-store.js";
import type { SandboxMetadata } from "../state/metadata.js";
import { recordEvent } from "./audit-log.js";
import type { RuntimeContext } from "./context.js";
import { resolveAgentPrograms } from "./host-programs.js";
import { agentLauncherPath } from "./assets.js";
import { identityKeyFile } from "./identity-key.js";
import { installSsh, startSshd } from "./ssh.js";

/** Host files a host-root sandbox reads (read-only) when they exist: CA certificates, alternatives. */
const optionalHostBinds = ["/etc/ssl", "/etc/ca-certificates", "/etc/alternatives", "/etc/ld.so.cache", "/etc/localtime"];

/**
 * Starts a sandbox's container on a fresh ephemeral root: network namespace and veth, tmpfs
 * root with a generated /etc, then systemd-nspawn. Records the pid in the metadata.
 */
export async function startSandbox(context: RuntimeContext, metadata: SandboxMetadata, template: TemplateModel): Promise<SandboxMetadata> {
  const { host } = context.settings;
  const programs = await resolveAgentPrograms(template);
  const link = sandboxLink(metadata.slot, host.network.base);
  const root = rootPath(context.paths, metadata.name);
  await createLink(link);
  await mountRoot(root);
  await buildHostRoot(root, {
    hostname: metadata.name,
    user: { name: host.containerUsername, uid: metadata.uid, gid: metadata.gid },
    workspacePath: host.workspacePath,
    nameserver: template.network.mode === "none" ? null : link.hostAddress,
    identityKey: metadata.secrets.includes(identityKeyFile) ? `${host.secretsMountPath}/${identityKeyFile}` : null,
    agents: template.agents.map((agent) => ({
      name: agent.name,
      program: programs.get(agent.name) ?? "",
      secretFile: agent.secret?.containerPath ?? null,
      envVar: agent.secret?.envVar ?? null,
    })),
  });
  if (template.ssh) await installSsh(context.paths, root, metadata, host.containerUsername);
  const binds = [
    { source: "/usr", target: "/usr", readOnly: true },
    ...(await existing(optionalHostBinds)).map((path) => ({ source: path, target: path, readOnly: true })),
    { source: agentLauncherPath(), target: "/opt/forage/bin/forage-agent", readOnly: true },
    { source: metadata.workspace.hostPath, target: host.workspacePath, readOnly: template.readOnlyWorkspace },
    ...(metadata.secrets.length > 0 ? [{ source: sandboxSecretsPath(context.paths, metadata.name), target: host.secretsMountPath, readOnly: true }] : []),
    ...(metadata.muxConfig === null ? [] : [{ source: metadata.muxConfig, target: `/home/${host.containerUsername}/.tmux.conf`, readOnly: true }]),
  ];
  const cgroup = await createSandboxCgroup(metadata.name, template.resourceLimits);
  const pid = await spawnContainer({
    root,
    hostname: metadata.name,
    user: host.containerUsername,
    networkNamespacePath: link.namespacePath,
    binds,
    logFile: metadataPath(context.paths, metadata.name).replace(/\.json$/, ".log"),
  }, (argv) => joinCgroupArgv(cgroup, argv));
  const started = { ...metadata, pid, startedAt: new Date().toISOString(), cgroup };
  await writeMetadata(context.paths, started);
  if (template.ssh) await startSshd(context, started);
  await recordEvent(context.paths, metadata.name, "start");
  return started;
}

/** Stops the container (graceful, then forceful) and removes its root and network. Idempotent. */
export async function stopSandbox(context: RuntimeContext, metadata: SandboxMetadata, graceSeconds = 10): Promise<SandboxMetadata> {
  const root = rootPath(context.paths, metadata.name);
  // A container whose pid never reached the metadata (its `up` was killed) is found by its root.
  const pid = (await isOurContainer(metadata.pid, root)) ? metadata.pid : await findContainerByRoot(root);
  if (pid !== null && pid !== undefined) await stopContainer(pid, graceSeconds);
  await unmountRoot(root);
  await removeLink(sandboxLink(metadata.slot, context.settings.host.network.base));
  if (metadata.cgroup !== null) await removeSandboxCgroup(metadata.cgroup);
  const stopped = { ...metadata, pid: null, startedAt: null, cgroup: null };
  await writeMetadata(context.paths, stopped);
  await recordEvent(context.paths, metadata.name, "stop");
  return stopped;
}

/** True when the sandbox's container is running now. */
export async function isRunning(context: RuntimeContext, metadata: SandboxMetadata): Promise<boolean> {
  return isOurContainer(metadata.pid, rootPath(context.paths, metadata.name));
}

async function existing(paths: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const path of paths) {
    try {
      await access(join(path));
      found.push(path);
    } catch {
      // not on this host
    }
  }
  return found;
}

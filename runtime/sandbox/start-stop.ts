import { access } from "node:fs/promises";
import { join } from "node:path";
import { runCommand } from "../core/run-command.js";
import type { TemplateModel } from "../../generator/model/model.js";
import { createSandboxCgroup, joinCgroupArgv, removeSandboxCgroup, sandboxCgroupName, type SandboxCgroup } from "../cgroups/sandbox-cgroup.js";
import { tmpfsCaps } from "../cgroups/tmpfs-caps.js";
import { createLink, removeLink } from "../network/sandbox-link.js";
import { linkOf, prepareNetwork, startNetworkGuard, stopNetwork } from "../network/sandbox-network.js";
import { ContainerError, findContainerByRoot, isOurContainer, leaderOf, spawnContainer, stopContainer, type Bind, type ContainerPayload } from "../nspawn/container-process.js";
import { proxyEnvFile } from "../proxy/sandbox-credentials.js";
import { buildHostRoot } from "../nspawn/host-root.js";
import { prepareNixRoot, requireSystem } from "../nspawn/nix-root.js";
import { isExtraContainerRunning, startExtraContainer, stopExtraContainer } from "../extra-container/backend.js";
import { mountRoot, unmountRoot } from "../nspawn/root-mount.js";
import { rootPath, sandboxSecretsPath, metadataPath } from "../core/paths.js";
import { enterArgv, removeSandboxFilter, writeSandboxFilter } from "../seccomp/sandbox-filter.js";
import { writeMetadata } from "../state/metadata-store.js";
import { stoppedMetadata, type SandboxMetadata } from "../state/metadata.js";
import { recordEvent } from "../core/audit-log.js";
import type { RuntimeContext } from "../core/context.js";
import { resolveAgentPrograms } from "./host-programs.js";
import { agentLauncherPath } from "./assets.js";
import { identityKeyFile } from "./identity-key.js";
import { systemSshBinds } from "./system-ssh-binds.js";
import { sandboxBinds } from "./sandbox-binds.js";
import { removePlaceholders } from "../workspaces/placeholders.js";
import { installSsh, startSshd } from "./ssh.js";
import { timed } from "../core/phase-clock.js";

/** Host files a host-root sandbox reads (read-only) when they exist: CA certificates, alternatives. */
const optionalHostBinds = ["/etc/ssl", "/etc/ca-certificates", "/etc/alternatives", "/etc/ld.so.cache", "/etc/localtime"];

/** How a sandbox's root is laid out and what its container runs, per root kind. */
interface RootLayout {
  binds: Bind[];
  payload: ContainerPayload;
  /** The NixOS system booted, or null for a host root. */
  system: string | null;
}

/**
 * Starts a sandbox's container on a fresh ephemeral root: network namespace and veth, tmpfs
 * root (a generated /etc on the host's /usr, or an empty one the NixOS system's init fills),
 * then systemd-nspawn. Records the pid in the metadata.
 */
export async function startSandbox(context: RuntimeContext, given: SandboxMetadata, template: TemplateModel): Promise<SandboxMetadata> {
  if (given.runtime === "extra-container") return startExtraContainer(context, given, template);
  const { host } = context.settings;
  const { clock } = context;
  const link = linkOf(context, given);
  const root = rootPath(context.paths, given.name);
  // A container that died on its own (an OOM kill takes nspawn first) left its namespace, link,
  // root and cgroup: they are this sandbox's own (same slot), so they go before anything is made.
  if (given.pid !== null || given.cgroup !== null) await tearDown(context, given, 1);
  await timed(clock, "start: link", () => createLink(link));
  const metadata = await timed(clock, "start: host table", () => prepareNetwork(context, given, template)).catch(async (error: unknown) => {
    await removeLink(link);
    throw error;
  });
  // The guard (a node process) starts while the root is built; its DNS port is in the table before up returns.
  const guarded = timed(clock, "start: network guard (concurrent)", () => startNetworkGuard(context, metadata));
  guarded.catch(() => undefined);
  let cgroup: SandboxCgroup | null = null;
  const caps = tmpfsCaps(template.resourceLimits.memoryMax);
  try {
    const layout = await timed(clock, "start: root", async () => {
      await mountRoot(root, caps.root);
      await writeSandboxFilter(context.paths, metadata.name, template.seccomp.allow);
      return metadata.runtime === "nspawn-nix" ? nixLayout(context, metadata, root, template) : hostLayout(context, metadata, root, template);
    });
    const binds = await timed(clock, "start: binds", async () => [
      ...layout.binds,
      ...(await sandboxBinds(context, metadata, template)),
      ...(metadata.secrets.length > 0 ? [{ source: sandboxSecretsPath(context.paths, metadata.name), target: host.secretsMountPath, readOnly: true }] : []),
    ]);
    const limited = await timed(clock, "start: cgroup", () => createSandboxCgroup(sandboxCgroupName(metadata), template.resourceLimits));
    cgroup = limited;
    const pid = await timed(clock, "start: nspawn until the payload runs", () =>
      spawnContainer(
        {
          root,
          hostname: metadata.name,
          payload: layout.payload,
          networkNamespacePath: link.namespacePath,
          binds,
          tmpfs: [
            { path: "/tmp", bytes: caps.tmp },
            { path: "/dev/shm", bytes: caps.devShm },
          ],
          logFile: metadataPath(context.paths, metadata.name).replace(/\.json$/, ".log"),
        },
        (argv) => joinCgroupArgv(limited.procsFiles, argv),
        clock,
      ),
    );
    // nspawn's /run (20% of the host's RAM) cannot be replaced (nspawn remounts /run/host inside
    // it afterwards); a host root's is shrunk in place before any command starts. A NixOS init owns its /run.
    if (layout.system === null) await timed(clock, "start: cap /run", () => capRun(pid, caps.run));
    const started = { ...(await timed(clock, "start: wait for the guard", () => guarded)), pid, startedAt: new Date().toISOString(), cgroup, system: layout.system };
    await timed(clock, "start: metadata, event", async () => {
      await writeMetadata(context.paths, started);
      // A NixOS system starts its own sshd (with the pinned key bound in); a host root gets ours.
      if (template.ssh && metadata.runtime === "nspawn") await startSshd(context, started);
      await recordEvent(context.paths, metadata.name, "start");
    });
    return started;
  } catch (error) {
    // Nothing half-started stays: the container (found by its root), the guard, the link, the cgroup.
    const known = await guarded.catch(() => metadata);
    await stopSandbox(context, { ...known, cgroup }, 1).catch(() => undefined);
    throw error;
  }
}

/** Shrinks the container's /run tmpfs (its other mount flags stay). */
async function capRun(nspawnPid: number, bytes: number): Promise<void> {
  const leader = await leaderOf(nspawnPid);
  if (leader === undefined) throw new ContainerError("the container's init is gone before its /run could be capped");
  // --pid too: mount reads /proc/self/mountinfo, which inside names only the container's pids.
  // --root: where nspawn could not pivot_root (a chroot, as on a fresh machine's build root) it
  // moved the root mount and chrooted, and joining the mount namespace alone lands outside it.
  await runCommand("nsenter", [`--target=${leader}`, "--mount", "--pid", "--root", "--", "mount", "-o", `remount,size=${bytes}`, "/run"]);
}

/** Host root: generated /etc, the host's /usr and a few /etc files read-only, the agent launcher. */
async function hostLayout(context: RuntimeContext, metadata: SandboxMetadata, root: string, template: TemplateModel): Promise<RootLayout> {
  const { host } = context.settings;
  const programs = await resolveAgentPrograms(template);
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
      envFile: agent.auth === "wrapper" ? null : proxyEnvFile(host.secretsMountPath, agent.name),
    })),
  });
  if (template.ssh) await installSsh(context.paths, root, metadata, host.containerUsername);
  return {
    binds: [
      { source: "/usr", target: "/usr", readOnly: true },
      ...(await existing(optionalHostBinds)).map((path) => ({ source: path, target: path, readOnly: true })),
      { source: agentLauncherPath(), target: "/opt/forage/bin/forage-agent", readOnly: true },
    ],
    payload: { kind: "placeholder", user: host.containerUsername, enter: enterArgv() },
    system: null,
  };
}

/**
 * NixOS root: the template's prebuilt system booted from its init on an empty root, with the
 * Nix store read-only. The host's Nix daemon socket is not bound: a sandbox that could build
 * would reach the network through fixed-output derivations, around its network policy.
 */
async function nixLayout(context: RuntimeContext, metadata: SandboxMetadata, root: string, template: TemplateModel): Promise<RootLayout> {
  const system = await requireSystem(context.paths.systemsDir, template.name);
  await prepareNixRoot(root);
  return {
    binds: [{ source: "/nix/store", target: "/nix/store", readOnly: true }, ...(await systemSshBinds(context, metadata, template))],
    payload: { kind: "init", init: `${system}/init` },
    system,
  };
}

/** Stops the container (graceful, then forceful) and removes its root and network. Idempotent. */
export async function stopSandbox(context: RuntimeContext, metadata: SandboxMetadata, graceSeconds = 10): Promise<SandboxMetadata> {
  if (metadata.runtime === "extra-container") return stopExtraContainer(context, metadata);
  await tearDown(context, metadata, graceSeconds);
  const stopped = stoppedMetadata(metadata);
  await writeMetadata(context.paths, stopped);
  await recordEvent(context.paths, metadata.name, "stop");
  return stopped;
}

/** Stops whatever is left of the container and removes its root, network and cgroup. Idempotent. */
async function tearDown(context: RuntimeContext, metadata: SandboxMetadata, graceSeconds: number): Promise<void> {
  const root = rootPath(context.paths, metadata.name);
  // A container whose pid never reached the metadata (its `up` was killed) is found by its root.
  const pid = (await isOurContainer(metadata.pid, root)) ? metadata.pid : await findContainerByRoot(root);
  if (pid !== null && pid !== undefined) await stopContainer(pid, graceSeconds, metadata.runtime === "nspawn-nix" ? "init" : "placeholder");
  await unmountRoot(root);
  await removeSandboxFilter(context.paths, metadata.name);
  await removePlaceholders(metadata);
  // The link before its policy: a link without its table would let whatever still runs in the
  // namespace (an exec'd process outlives the container) reach the network unfiltered.
  await removeLink(linkOf(context, metadata));
  await stopNetwork(context, metadata);
  if (metadata.cgroup !== null) await removeSandboxCgroup(metadata.cgroup);
}

/** True when the sandbox's container is running now. */
export async function isRunning(context: RuntimeContext, metadata: SandboxMetadata): Promise<boolean> {
  if (metadata.runtime === "extra-container") return isExtraContainerRunning(metadata);
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

import { realpath, rm, writeFile } from "node:fs/promises";
import type { TemplateModel } from "../../../generator/model/model.js";
import { prepareNetwork, startNetworkGuard, stopNetwork } from "../../gates/network/sandbox-network.js";
import { sandboxLink } from "../../gates/network/sandbox-link.js";
import { metadataPath, sandboxSecretsPath, type RuntimePaths } from "../../core/paths.js";
import type { SandboxMetadata } from "../../state/metadata.js";
import type { RuntimeContext } from "../../core/context.js";
import { containerUnit, isUnitActive, limitProperties, runTool, unitMainPid } from "./container-unit.js";
import { extraContainerDefinition } from "./definition.js";
import { SandboxError } from "../../core/errors.js";
import { ContainerError } from "../shared/container-error.js";
import { leaderOf } from "../shared/nspawn-leader.js";
import { namespaceEntry, sharedKernel } from "../shared/namespace-entry.js";
import { tmpfsCaps } from "../../cgroups/tmpfs-caps.js";
import { capContainerTmpfs } from "./container-tmpfs.js";
import { unitCgroup } from "./unit-cgroup.js";
import type { Backend } from "../backend.js";
import { nspawnUnavailable } from "../shared/host-tools.js";
import { nixosInside } from "../shared/nixos-inside.js";
import { extraContainerUnavailable } from "./availability.js";
import { systemSshBinds } from "../../provision/system-ssh-binds.js";
import { removeSandboxFilter, writeSandboxFilter } from "../../seccomp/sandbox-filter.js";
import { sandboxBinds } from "../../provision/sandbox-binds.js";

/** The sandbox's extra-container definition: `<state>/sandboxes/<name>.nix` (no secrets in it). */
export function definitionPath(paths: RuntimePaths, name: string): string {
  return metadataPath(paths, name).replace(/\.json$/, ".nix");
}

/**
 * Starts a sandbox as a NixOS container the reference's way: writes its definition from the
 * template's generated container file and runs `extra-container create --start` (which builds
 * and starts `container@f<N>.service`; NixOS makes the veth ve-f<N> with the slot's addresses).
 * The template's resource limits are set on that unit and its tmpfs mounts capped below them;
 * its main pid and cgroup are recorded. A failed start stops what it started.
 */
async function start(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  template: TemplateModel,
): Promise<SandboxMetadata> {
  try {
    await writeSandboxFilter(context.paths, metadata.name, template.seccomp.allow);
    const prepared = await createContainer(context, metadata, template);
    const limits = limitProperties(template.resourceLimits);
    if (limits.length > 0)
      await runTool(
        "systemctl",
        ["set-property", "--runtime", containerUnit(metadata.containerName), ...limits],
        "apply the resource limits",
      );
    const pid = await unitMainPid(metadata.containerName);
    const leaderPid = pid === null ? undefined : await leaderOf(pid);
    if (pid === null || leaderPid === undefined)
      throw new ContainerError(
        `${containerUnit(metadata.containerName)} is active but its container's init is not running`,
      );
    await capContainerTmpfs(leaderPid, tmpfsCaps(template.resourceLimits.memoryMax));
    // Read once the limits are set: systemd realises the unit's groups on their hierarchies then.
    const running = { ...prepared, pid, cgroup: await unitCgroup(metadata.containerName, pid) };
    // The guard listens on the host end's address, which exists only now.
    const guarded = await startNetworkGuard(context, running, namespaceOf(leaderPid));
    return { ...guarded, startedAt: new Date().toISOString(), system: await containerSystem(metadata.containerName) };
  } catch (error) {
    await stop(context, metadata).catch(() => undefined);
    throw error;
  }
}

/** Writes the sandbox's definition, fences its network and creates and starts its container. */
async function createContainer(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  template: TemplateModel,
): Promise<SandboxMetadata> {
  const link = sandboxLink(metadata.slot, context.settings.host.network.base);
  // The primary workspace (the first bind) is the definition's own `workspace`; the rest ride
  // along as extra bind mounts.
  const extraBinds = [
    ...(await sandboxBinds(context, metadata, template, extraContainerBackend.capabilities)).slice(1),
    ...(await systemSshBinds(context, metadata, template)),
  ];
  const file = definitionPath(context.paths, metadata.name);
  const definition = extraContainerDefinition({
    sandbox: metadata.name,
    template: template.name,
    generatedDir: context.paths.generatedDir,
    modulesDir: context.paths.modulesDir,
    containerName: metadata.containerName,
    hostAddress: link.hostAddress,
    localAddress: link.sandboxAddress,
    hostAddress6: link.hostAddress6,
    localAddress6: link.sandboxAddress6,
    uid: metadata.uid,
    gid: metadata.gid,
    workspace: metadata.workspace.hostPath,
    secretsDir: metadata.secrets.length > 0 ? sandboxSecretsPath(context.paths, metadata.name) : null,
    extraBindMounts: Object.fromEntries(
      extraBinds.map((bind) => [bind.target, { hostPath: bind.source, readOnly: bind.readOnly }]),
    ),
  });
  for (const path of [metadata.workspace.hostPath, ...extraBinds.flatMap((bind) => [bind.source, bind.target])])
    assertPlainBindPath(path);
  await writeFile(file, definition, { mode: 0o644 });
  // NixOS makes ve-f<N> when the container starts; the table matches it by name, so it goes first.
  const prepared = await prepareNetwork(context, metadata, template);
  await runTool("extra-container", ["create", "--start", file], `create container ${metadata.containerName}`);
  return prepared;
}

/**
 * Stops the container's unit (NixOS halts the container gracefully) and its network; idempotent.
 * The unit's cgroup is systemd's: it goes with the unit, never removed here.
 */
async function stop(context: RuntimeContext, metadata: SandboxMetadata): Promise<void> {
  if (await isUnitActive(metadata.containerName))
    await runTool(
      "systemctl",
      ["stop", containerUnit(metadata.containerName)],
      `stop container ${metadata.containerName}`,
    );
  await stopNetwork(context, metadata);
  await removeSandboxFilter(context.paths, metadata.name);
}

/** Removes the container's definition from the host (`extra-container destroy`) and our copy. */
async function destroy(context: RuntimeContext, metadata: SandboxMetadata): Promise<void> {
  // A sandbox whose create failed has nothing installed: only what extra-container lists is destroyed.
  const installed = (await runTool("extra-container", ["list"], "list the installed containers"))
    .split("\n")
    .map((line) => line.trim());
  if (installed.includes(metadata.containerName))
    await runTool(
      "extra-container",
      ["destroy", metadata.containerName],
      `destroy container ${metadata.containerName}`,
    );
  await rm(definitionPath(context.paths, metadata.name), { force: true });
}

/**
 * NixOS writes bind mounts unquoted into the container's nspawn flags (EXTRA_NSPAWN_FLAGS in
 * /etc/nixos-containers/<name>.conf): a space, quote or newline in a path would add flags or
 * settings of its own. Only plain paths are passed on.
 */
function assertPlainBindPath(path: string): void {
  if (!/^\/[A-Za-z0-9._+\/@%,=~-]*$/.test(path)) {
    throw new SandboxError(
      `${JSON.stringify(path)} cannot be bound by extra-container: only letters, digits and . _ + / @ % , = ~ - are safe in its container flags (use --runtime nspawn-nix)`,
      "usage",
    );
  }
}

/** The system a NixOS container runs, from the host's profile link (not from inside the container). */
async function containerSystem(containerName: string): Promise<string | null> {
  const system = await realpath(`/nix/var/nix/profiles/per-container/${containerName}/system`).catch(() => null);
  return system?.startsWith("/nix/store/") === true ? system : null;
}

/** The network namespace of a container's PID 1 (NixOS made it; forage-ctl has no path of its own for it). */
function namespaceOf(leaderPid: number | undefined): string | undefined {
  return leaderPid === undefined ? undefined : `/proc/${leaderPid}/ns/net`;
}

/** The container's PID 1, found through the unit's main process (its systemd-nspawn). */
async function leader(_context: RuntimeContext, metadata: SandboxMetadata): Promise<number | undefined> {
  if (metadata.pid === null || !(await isUnitActive(metadata.containerName))) return undefined;
  return leaderOf(metadata.pid);
}

/**
 * NixOS containers (container@f<N>.service) made by extra-container from the template's generated
 * container file, the reference's way; chosen with --runtime. NixOS makes the veth and binds by
 * path (no descriptor staging, no stand-ins for absent protected paths).
 */
export const extraContainerBackend: Backend = {
  name: "extra-container",
  capabilities: {
    nixosConfig: true,
    networkIsolation: true,
    ephemeralRoot: true,
    ssh: true,
    generatedFiles: true,
    resourceLimits: true,
    gracefulShutdown: true,
    pinnedBinds: false,
    ownInit: true,
    checkpoint: false,
  },
  inside: nixosInside,
  describe: async () =>
    "NixOS containers (container@f<N>.service) created with extra-container from containers/<template>.nix; chosen with --runtime",
  async unavailable(paths, template) {
    return (await nspawnUnavailable()) ?? (await extraContainerUnavailable(paths, template));
  },
  async preflight(context, template) {
    const reason = await extraContainerUnavailable(context.paths, template.name);
    if (reason !== undefined)
      throw new SandboxError(`runtime extra-container cannot run template "${template.name}": ${reason}`, "usage");
  },
  start,
  stop: (context, metadata) => stop(context, metadata),
  isRunning: (_context, metadata) => isUnitActive(metadata.containerName),
  ...namespaceEntry(leader),
  kernel: async () => sharedKernel,
  networkNamespace: async (context, metadata) => namespaceOf(await leader(context, metadata)),
  destroy,
};

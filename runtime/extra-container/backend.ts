import { realpath, rm, writeFile } from "node:fs/promises";
import type { TemplateModel } from "../../generator/model/model.js";
import { prepareNetwork, startNetworkGuard, stopNetwork } from "../network/sandbox-network.js";
import { sandboxLink } from "../network/sandbox-link.js";
import { metadataPath, sandboxSecretsPath, type RuntimePaths } from "../core/paths.js";
import { writeMetadata } from "../state/metadata-store.js";
import { stoppedMetadata, type SandboxMetadata } from "../state/metadata.js";
import { recordEvent } from "../core/audit-log.js";
import type { RuntimeContext } from "../core/context.js";
import { containerUnit, isUnitActive, limitProperties, runTool, unitMainPid } from "./container-unit.js";
import { extraContainerDefinition } from "./definition.js";
import { SandboxError } from "../core/errors.js";
import { systemSshBinds } from "../sandbox/system-ssh-binds.js";
import { removeSandboxFilter, writeSandboxFilter } from "../seccomp/sandbox-filter.js";
import { sandboxBinds } from "../sandbox/sandbox-binds.js";

/** The sandbox's extra-container definition: `<state>/sandboxes/<name>.nix` (no secrets in it). */
export function definitionPath(paths: RuntimePaths, name: string): string {
  return metadataPath(paths, name).replace(/\.json$/, ".nix");
}

/**
 * Starts a sandbox as a NixOS container the reference's way: writes its definition from the
 * template's generated container file and runs `extra-container create --start` (which builds
 * and starts `container@f<N>.service`; NixOS makes the veth ve-f<N> with the slot's addresses).
 * The template's resource limits are set on that unit; its main pid is recorded.
 */
export async function startExtraContainer(context: RuntimeContext, metadata: SandboxMetadata, template: TemplateModel): Promise<SandboxMetadata> {
  const { host } = context.settings;
  const link = sandboxLink(metadata.slot, host.network.base);
  await writeSandboxFilter(context.paths, metadata.name, template.seccomp.allow);
  // The primary workspace (the first bind) is the definition's own `workspace`; the rest ride
  // along as extra bind mounts.
  const extraBinds = [...(await sandboxBinds(context, metadata, template)).slice(1), ...(await systemSshBinds(context, metadata, template))];
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
    extraBindMounts: Object.fromEntries(extraBinds.map((bind) => [bind.target, { hostPath: bind.source, readOnly: bind.readOnly }])),
  });
  for (const path of [metadata.workspace.hostPath, ...extraBinds.flatMap((bind) => [bind.source, bind.target])]) assertPlainBindPath(path);
  await writeFile(file, definition, { mode: 0o644 });
  // NixOS makes ve-f<N> when the container starts; the table matches it by name, so it goes first.
  const prepared = await prepareNetwork(context, metadata, template);
  await runTool("extra-container", ["create", "--start", file], `create container ${metadata.containerName}`);
  const limits = limitProperties(template.resourceLimits);
  if (limits.length > 0) await runTool("systemctl", ["set-property", "--runtime", containerUnit(metadata.containerName), ...limits], "apply the resource limits");
  // The guard listens on the host end's address, which exists only now.
  const guarded = await startNetworkGuard(context, { ...prepared, pid: await unitMainPid(metadata.containerName) });
  const started = { ...guarded, startedAt: new Date().toISOString(), cgroup: null, system: await containerSystem(metadata.containerName) };
  await writeMetadata(context.paths, started);
  await recordEvent(context.paths, metadata.name, "start");
  return started;
}

/** Stops the container's unit (NixOS halts the container gracefully); idempotent. */
export async function stopExtraContainer(context: RuntimeContext, metadata: SandboxMetadata): Promise<SandboxMetadata> {
  if (await isUnitActive(metadata.containerName)) await runTool("systemctl", ["stop", containerUnit(metadata.containerName)], `stop container ${metadata.containerName}`);
  await stopNetwork(context, metadata);
  await removeSandboxFilter(context.paths, metadata.name);
  const stopped = stoppedMetadata(metadata);
  await writeMetadata(context.paths, stopped);
  await recordEvent(context.paths, metadata.name, "stop");
  return stopped;
}

/** Removes the container's definition from the host (`extra-container destroy`) and our copy. */
export async function destroyExtraContainer(context: RuntimeContext, metadata: SandboxMetadata): Promise<void> {
  // A sandbox whose create failed has nothing installed: only what extra-container lists is destroyed.
  const installed = (await runTool("extra-container", ["list"], "list the installed containers")).split("\n").map((line) => line.trim());
  if (installed.includes(metadata.containerName)) await runTool("extra-container", ["destroy", metadata.containerName], `destroy container ${metadata.containerName}`);
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

export function isExtraContainerRunning(metadata: SandboxMetadata): Promise<boolean> {
  return isUnitActive(metadata.containerName);
}

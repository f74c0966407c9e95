import { dropUndefined } from "../../../generator/lib/drop-undefined.js";
import type { TemplateModel } from "../../../generator/model/model.js";
import {
  createSandboxCgroup,
  joinCgroupArgv,
  removeSandboxCgroup,
  sandboxCgroupName,
  type SandboxCgroup,
} from "../../cgroups/sandbox-cgroup.js";
import { tmpfsCaps } from "../../cgroups/tmpfs-caps.js";
import type { Bind } from "../../core/bind.js";
import type { RuntimeContext } from "../../core/context.js";
import { timed } from "../../core/phase-clock.js";
import { metadataPath, rootPath } from "../../core/paths.js";
import { createLink, removeLink } from "../../gates/network/sandbox-link.js";
import { linkOf, prepareNetwork, startNetworkGuard, stopNetwork } from "../../gates/network/sandbox-network.js";
import { ContainerError } from "../shared/container-error.js";
import { leaderOf } from "../shared/nspawn-leader.js";
import { namespaceEntry, sharedKernel } from "../shared/namespace-entry.js";
import {
  findContainerByRoot,
  isOurContainer,
  spawnContainer,
  stopContainer,
  type ContainerPayload,
  type NspawnSpec,
} from "./container-process.js";
import { mountRoot, unmountRoot } from "../../mounts/root-mount.js";
import { stageBinds } from "../../mounts/staged-binds.js";
import { resizeTmpfs } from "../../mounts/host-mounts.js";
import { sandboxBinds, secretsBinds } from "../../provision/sandbox-binds.js";
import { removeSandboxFilter, seccompBinds, writeSandboxFilter } from "../../seccomp/sandbox-filter.js";
import { rootKeyOf, type SandboxMetadata } from "../../state/metadata.js";

/** How a sandbox's root is laid out and what its container runs: the part the nspawn runtimes differ in. */
export interface RootLayout {
  binds: Bind[];
  payload: ContainerPayload;
  /** The NixOS system booted, or null for a host root (whose /run forage-ctl caps: a NixOS init owns its own). */
  system: string | null;
}

/** A kind of nspawn root: how it is laid out, and what runs as its payload (which decides how it stops). */
export interface NspawnRoot {
  payload: ContainerPayload["kind"];
  /** Lays out a fresh root (a host root's /etc, or an empty root a NixOS init fills). */
  layOut(
    context: RuntimeContext,
    metadata: SandboxMetadata,
    root: string,
    template: TemplateModel,
  ): Promise<RootLayout>;
}

/**
 * Starts a sandbox's container on a fresh ephemeral root: its network namespace, veth and
 * host-side table, and (meanwhile) its tmpfs root laid out by `kind`, binds and cgroup; then
 * systemd-nspawn, once both are done, so the sandbox never runs unfenced. Returns the running
 * sandbox's metadata (not yet written). Nothing half-started stays when a step fails.
 */
export async function startNspawn(
  context: RuntimeContext,
  given: SandboxMetadata,
  template: TemplateModel,
  kind: NspawnRoot,
): Promise<SandboxMetadata> {
  const { clock } = context;
  const link = linkOf(context, given);
  // A container that died on its own (an OOM kill takes nspawn first) left its namespace, link,
  // root and cgroup: they are this sandbox's own (same slot), so they go before anything is made.
  if (given.pid !== null || given.cgroup !== null) await stopNspawn(context, given, 1, kind.payload);
  let cgroup: SandboxCgroup | null = null;
  let guarded: Promise<SandboxMetadata> | undefined;
  const fenced = timed(clock, "start: link and host table", async () => {
    await createLink(link);
    return prepareNetwork(context, given, template);
  });
  const laidOut = prepareContainer(context, given, template, kind, (made) => (cgroup = made));
  try {
    const [metadata, container] = await Promise.all([fenced, laidOut]);
    // The guard starts beside nspawn; its DNS port is in the table before up returns. A pool's
    // member gets none: its policy refuses everything, and the sandbox that claims it gets its own.
    guarded = timed(clock, "start: network guard (concurrent)", () =>
      metadata.pool === undefined
        ? startNetworkGuard(context, metadata, link.namespacePath)
        : Promise.resolve(metadata),
    );
    guarded.catch(() => undefined);
    const pid = await runContainer(context, container);
    return {
      ...(await timed(clock, "start: wait for the guard", () => guarded ?? Promise.resolve(metadata))),
      pid,
      startedAt: new Date().toISOString(),
      cgroup: container.cgroup,
      system: container.system,
    };
  } catch (error) {
    // Nothing half-started stays: the staged binds, the container (found by its root), the guard, the link, the cgroup.
    const [, prepared] = await Promise.allSettled([fenced, laidOut]);
    if (prepared.status === "fulfilled") await prepared.value.releaseStaged().catch(() => undefined);
    const known = (await guarded?.catch(() => undefined)) ?? (await fenced.catch(() => given));
    await stopNspawn(context, { ...known, cgroup }, 1, kind.payload).catch(() => undefined);
    throw error;
  }
}

/** What nspawn is started with: the spec of the container, its cgroup, and the system it boots. */
interface PreparedContainer {
  spec: NspawnSpec;
  /** Takes the staged bind mounts down (once: the container's start does, or a failure's clean-up). */
  releaseStaged: () => Promise<void>;
  cgroup: SandboxCgroup;
  system: string | null;
  runCap: number;
}

/** Root, filter, binds (staged) and cgroup: everything of the container but its process. */
async function prepareContainer(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  template: TemplateModel,
  kind: NspawnRoot,
  madeCgroup: (cgroup: SandboxCgroup) => void,
): Promise<PreparedContainer> {
  const { clock } = context;
  const root = rootPath(context.paths, rootKeyOf(metadata));
  const caps = tmpfsCaps(template.resourceLimits.memoryMax);
  const layout = await timed(clock, "start: root", async () => {
    await mountRoot(root, caps.root);
    await writeSandboxFilter(context.paths, metadata.name, template.seccomp.allow);
    return kind.layOut(context, metadata, root, template);
  });
  // A pool's member has nothing of a user's yet: an `up` that claims it binds the rest (adoptMember).
  const binds = await timed(clock, "start: binds", async () => [
    ...layout.binds,
    ...(metadata.pool === undefined
      ? await sandboxBinds(context, metadata, template, { pinnedBinds: true })
      : seccompBinds(context.paths, metadata.name)),
    ...secretsBinds(context, metadata),
  ]);
  // Staged here, beside the link and table being made, not after: they are on up's critical path.
  const [staging, grouping] = await Promise.allSettled([
    timed(clock, "start: stage binds", () => stageBinds(binds)),
    timed(clock, "start: cgroup", () => createSandboxCgroup(sandboxCgroupName(metadata), template.resourceLimits)).then(
      (made) => (madeCgroup(made), made),
    ),
  ]);
  if (staging.status === "rejected" || grouping.status === "rejected") {
    if (staging.status === "fulfilled") await staging.value.release();
    throw staging.status === "rejected" ? staging.reason : (grouping as PromiseRejectedResult).reason;
  }
  const staged = staging.value;
  const cgroup = grouping.value;
  const spec: NspawnSpec = {
    root,
    hostname: metadata.name,
    payload: layout.payload,
    networkNamespacePath: linkOf(context, metadata).namespacePath,
    binds: staged.binds,
    tmpfs: [
      { path: "/tmp", bytes: caps.tmp },
      { path: "/dev/shm", bytes: caps.devShm },
    ],
    logFile: metadataPath(context.paths, metadata.name).replace(/\.json$/, ".log"),
  };
  return { spec, releaseStaged: staged.release, cgroup, system: layout.system, runCap: caps.run };
}

/** Starts nspawn in the sandbox's cgroup and waits for its payload; caps a host root's /run. */
async function runContainer(context: RuntimeContext, container: PreparedContainer): Promise<number> {
  const { clock } = context;
  // nspawn's /run (20% of the host's RAM) cannot be replaced (nspawn remounts /run/host inside
  // it afterwards); it is shrunk in place while the staged binds are let go: before any command
  // of ours starts. A NixOS root's too: its systems say boot.isNspawnContainer, so its stage 2
  // leaves nspawn's /run as it is (and never grows it back).
  const capped = (pid: number): Promise<void> => timed(clock, "start: cap /run", () => capRun(pid, container.runCap));
  return timed(clock, "start: nspawn until the payload runs", () =>
    spawnContainer(
      container.spec,
      container.releaseStaged,
      dropUndefined({
        wrap: (argv: string[]) => joinCgroupArgv(container.cgroup.procsFiles, argv),
        clock,
        whileReleasing: capped,
      }),
    ),
  );
}

/** Shrinks the container's /run tmpfs (its other mount flags stay). */
async function capRun(nspawnPid: number, bytes: number): Promise<void> {
  const leader = await leaderOf(nspawnPid);
  if (leader === undefined) throw new ContainerError("the container's init is gone before its /run could be capped");
  // As the container's init sees it: its mount namespace and its root (where nspawn could not
  // pivot_root, as on a fresh machine's build root, it chrooted, and the namespace's root is not the container's).
  await resizeTmpfs(leader, "/run", bytes);
}

/** Stops whatever is left of the container and removes its root, network and cgroup. Idempotent. */
export async function stopNspawn(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  graceSeconds: number,
  payload: ContainerPayload["kind"],
): Promise<void> {
  const root = rootPath(context.paths, rootKeyOf(metadata));
  // A container whose pid never reached the metadata (its `up` was killed) is found by its root.
  const pid = (await isOurContainer(metadata.pid, root)) ? metadata.pid : await findContainerByRoot(root);
  if (pid !== null && pid !== undefined) await stopContainer(pid, graceSeconds, payload);
  await unmountRoot(root);
  await removeSandboxFilter(context.paths, metadata.name);
  // The link before its policy: a link without its table would let whatever still runs in the
  // namespace (an exec'd process outlives the container) reach the network unfiltered.
  await removeLink(linkOf(context, metadata));
  await stopNetwork(context, metadata);
  if (metadata.cgroup !== null) await removeSandboxCgroup(metadata.cgroup);
}

/** The running container's PID 1 (the namespaces commands enter), or undefined. */
async function nspawnLeader(context: RuntimeContext, metadata: SandboxMetadata): Promise<number | undefined> {
  if (metadata.pid === null || !(await isOurContainer(metadata.pid, rootPath(context.paths, rootKeyOf(metadata)))))
    return undefined;
  return leaderOf(metadata.pid);
}

/** The nspawn runtimes' shared answers: running, entry, namespace, nothing kept beyond a stop. */
export const nspawnQueries = {
  isRunning: (context: RuntimeContext, metadata: SandboxMetadata): Promise<boolean> =>
    isOurContainer(metadata.pid, rootPath(context.paths, rootKeyOf(metadata))),
  ...namespaceEntry(nspawnLeader),
  networkNamespace: async (context: RuntimeContext, metadata: SandboxMetadata): Promise<string | undefined> =>
    linkOf(context, metadata).namespacePath,
  kernel: async (): Promise<string> => sharedKernel,
  destroy: async (): Promise<void> => undefined,
};

import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
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
import { packageRoot } from "../../core/package-root.js";
import { metadataPath, rootPath, sandboxSecretsPath, type RuntimePaths } from "../../core/paths.js";
import { mountRoot, unmountRoot } from "../../mounts/root-mount.js";
import { stageBinds, type StagedBinds } from "../../mounts/staged-binds.js";
import { createLink, removeLink } from "../../network/sandbox-link.js";
import { linkOf, prepareNetwork, startNetworkGuard, stopNetwork } from "../../network/sandbox-network.js";
import { sandboxBinds } from "../../provision/sandbox-binds.js";
import { enterArgv, removeSandboxFilter, writeSandboxFilter } from "../../seccomp/sandbox-filter.js";
import type { SandboxMetadata } from "../../state/metadata.js";
import { layOutHostRoot } from "../shared/host-root-layout.js";
import { sandboxSpec } from "./oci-spec.js";
import { bundlePath, containerState, runDetached, runscCommand, type Runsc } from "./runsc.js";

/** Where the statx shim (native/gvisor-statx.c) is inside, preloaded into every program. */
const statxShimInside = "/opt/forage/lib/gvisor-statx.so";

/**
 * PID 1: bash under the sandbox's filter, as the agent, reaping whatever is orphaned to it (a
 * detached tmux server's children) and otherwise asleep; gVisor has no stub init as nspawn has.
 */
const reaper = ["/usr/bin/bash", "-c", "while :; do /usr/bin/sleep 86400 & wait; done"];

/** The runsc container of a sandbox: its container name (f<slot>), unique on the host. */
export function containerId(metadata: SandboxMetadata): string {
  return metadata.containerName;
}

/**
 * Starts a sandbox under runsc on a fresh host root: its network namespace, veth and host-side
 * table as for nspawn, the tmpfs root laid out, binds staged from checked descriptors, its cgroup
 * with the template's limits, an OCI bundle, then `runsc run --detach` inside that cgroup and
 * namespace, so it never runs unfenced. Nothing half-started stays when a step fails.
 */
export async function startGvisor(
  context: RuntimeContext,
  given: SandboxMetadata,
  template: TemplateModel,
  runsc: Runsc,
): Promise<SandboxMetadata> {
  const { clock } = context;
  const link = linkOf(context, given);
  if (given.pid !== null || given.cgroup !== null) await stopGvisor(context, given, runsc, 1);
  let cgroup: SandboxCgroup | null = null;
  let staged: StagedBinds | undefined;
  let guarded: Promise<SandboxMetadata> | undefined;
  const fenced = timed(clock, "start: link and host table", async () => {
    await createLink(link);
    return prepareNetwork(context, given, template);
  });
  try {
    const root = rootPath(context.paths, given.name);
    const caps = tmpfsCaps(template.resourceLimits.memoryMax);
    const layout = await timed(clock, "start: root", async () => {
      await mountRoot(root, caps.root);
      await writeSandboxFilter(context.paths, given.name, template.seccomp.allow);
      const binds = await layOutHostRoot(context, given, root, template);
      await writeFile(join(root, "etc/ld.so.preload"), `${statxShimInside}\n`, { mode: 0o644 });
      return binds;
    });
    const binds = await timed(clock, "start: binds", async () => [
      ...layout,
      { source: join(packageRoot(), "dist/native/gvisor-statx.so"), target: statxShimInside, readOnly: true },
      // gVisor's /proc is its own: nothing of the host's keys to mask there.
      ...(await sandboxBinds(context, given, template, { pinnedBinds: true })).filter(
        (bind) => !bind.target.startsWith("/proc/"),
      ),
      ...secretsBind(context, given),
    ]);
    staged = await timed(clock, "start: stage binds", () => stageBinds(binds));
    cgroup = await timed(clock, "start: cgroup", () =>
      createSandboxCgroup(sandboxCgroupName(given), template.resourceLimits),
    );
    const bundle = bundlePath(context.paths, given.name);
    await mkdir(bundle, { recursive: true, mode: 0o700 });
    const metadata = await fenced;
    await writeFile(
      join(bundle, "config.json"),
      JSON.stringify(
        sandboxSpec({
          hostname: given.name,
          root,
          binds: staged.binds,
          networkNamespacePath: link.namespacePath,
          init: [...enterArgv(), ...reaper],
          user: { uid: given.uid, gid: given.gid },
          env: { PATH: "/usr/bin:/bin", HOME: "/" },
        }),
      ),
      { mode: 0o600 },
    );
    await writeFile(join(bundle, "platform"), `${runsc.platform}\n`, { mode: 0o644 });
    guarded = timed(clock, "start: network guard (concurrent)", () =>
      startNetworkGuard(context, metadata, link.namespacePath),
    );
    guarded.catch(() => undefined);
    const groups = cgroup.procsFiles;
    await timed(clock, "start: runsc run", () =>
      runDetached(runsc, containerId(given), bundle, logPath(context, given), (argv) => joinCgroupArgv(groups, argv)),
    );
    // The gofer holds its own copies of the staged binds now.
    await staged.release();
    const state = await containerState(runsc, containerId(given));
    return {
      ...(await timed(clock, "start: wait for the guard", () => guarded ?? Promise.resolve(metadata))),
      pid: state?.pid ?? null,
      startedAt: new Date().toISOString(),
      cgroup,
      system: null,
    };
  } catch (error) {
    await staged?.release().catch(() => undefined);
    const known = (await guarded?.catch(() => undefined)) ?? (await fenced.catch(() => given));
    await stopGvisor(context, { ...known, cgroup }, runsc, 1).catch(() => undefined);
    throw error;
  }
}

/** The sandbox's secret copies, read-only at the configured path, when it has any. */
function secretsBind(context: RuntimeContext, metadata: SandboxMetadata): Bind[] {
  if (metadata.secrets.length === 0) return [];
  const source = sandboxSecretsPath(context.paths, metadata.name);
  return [{ source, target: context.settings.host.secretsMountPath, readOnly: true }];
}

/** The platform a sandbox was started on (written beside its bundle), or undefined when it is not started. */
export async function startedPlatform(paths: RuntimePaths, name: string): Promise<string | undefined> {
  const text = await readFile(join(bundlePath(paths, name), "platform"), "utf8").catch(() => "");
  return /^[a-z]+\n$/.test(text) ? text.trim() : undefined;
}

function logPath(context: RuntimeContext, metadata: SandboxMetadata): string {
  return metadataPath(context.paths, metadata.name).replace(/\.json$/, ".log");
}

/**
 * Stops the sandbox: SIGTERM to every process inside, `graceSeconds` for them to end, then
 * runsc's forced delete (the sandbox and its gofer); then its root, filter, link, table and
 * cgroup. Idempotent: a sandbox runsc no longer knows only has its host-side parts removed.
 */
export async function stopGvisor(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  runsc: Runsc,
  graceSeconds: number,
): Promise<void> {
  const id = containerId(metadata);
  const state = await containerState(runsc, id);
  if (state !== undefined) {
    if (state.status === "running") {
      await runscCommand(runsc, ["kill", "--all", id, "TERM"], "ask the sandbox's processes to end").catch(
        () => undefined,
      );
      for (let waited = 0; waited < graceSeconds * 1000; waited += 100) {
        if ((await containerState(runsc, id))?.status !== "running") break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    await runscCommand(runsc, ["delete", "--force", id], "remove the sandbox");
  }
  await unmountRoot(rootPath(context.paths, metadata.name));
  await rm(bundlePath(context.paths, metadata.name), { recursive: true, force: true });
  await removeSandboxFilter(context.paths, metadata.name);
  await removeLink(linkOf(context, metadata));
  await stopNetwork(context, metadata);
  if (metadata.cgroup !== null) await removeSandboxCgroup(metadata.cgroup);
}

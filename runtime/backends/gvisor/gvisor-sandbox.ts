import { chmod, copyFile, mkdir, rm, writeFile } from "node:fs/promises";
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
import type { RuntimeContext } from "../../core/context.js";
import { SandboxError } from "../../core/errors.js";
import { timed } from "../../core/phase-clock.js";
import { packageRoot } from "../../core/package-root.js";
import { rootPath, type RuntimePaths } from "../../core/paths.js";
import { mountRoot, unmountRoot } from "../../mounts/root-mount.js";
import { stageBinds, type StagedBinds } from "../../mounts/staged-binds.js";
import { createLink, removeLink } from "../../gates/network/sandbox-link.js";
import { linkOf, prepareNetwork, startNetworkGuard, stopNetwork } from "../../gates/network/sandbox-network.js";
import { sandboxBinds, secretsBinds } from "../../provision/sandbox-binds.js";
import {
  enterHelperPath,
  enterMountPath,
  filterMountPath,
  removeSandboxFilter,
  sandboxFilterPath,
  writeSandboxFilter,
} from "../../seccomp/sandbox-filter.js";
import type { SandboxMetadata } from "../../state/metadata.js";
import { layOutHostRoot } from "../shared/host-root-layout.js";
import { recordBinds } from "./checkpoint.js";
import { netstackNamespaceCheck } from "./netstack.js";
import { sandboxSpec } from "./oci-spec.js";
import { recordStartedWith } from "./started-with.js";
import { gvisorHostTasks, processRlimits, recordTaskLimit } from "./task-limit.js";
import {
  bundlePath,
  containerState,
  othersRunning,
  processesWithTerminal,
  removeContainer,
  runDetached,
  runscCommand,
  runscLogPath,
  type Runsc,
} from "./runsc.js";

/**
 * The way in, inside: forage-enter and the sandbox's filter, copied into a root-owned directory
 * bound read-only as a mount point right under /. runsc exec finds them by path inside on every
 * entry, so root inside must not be able to swap them: /run/forage (where nspawn binds them, which
 * enters from host paths) is a directory of the writable root, which root inside could rename and
 * refill; a mount point under / cannot be moved, and the filter refuses mount and umount.
 */
export const entryDirInside = "/.forage";
export const enterInside = `${entryDirInside}/enter`;
export const filterInside = `${entryDirInside}/seccomp.bpf`;
/** The statx shim (native/gvisor-statx.c), preloaded into every program. */
const statxShimInside = `${entryDirInside}/gvisor-statx.so`;

/**
 * PID 1: bash under the sandbox's filter, as the agent, reaping whatever is orphaned to it (a
 * detached tmux server's children) and otherwise asleep; gVisor has no stub init as nspawn has.
 * Its stdio goes to /dev/null at once (runsc hands it runsc's own, the host's log file); it
 * ignores SIGTERM so that a stop's TERM reaches the agents while it stays (an init that exits
 * takes everything in its PID namespace down with SIGKILL).
 */
const reaper = [
  "/usr/bin/bash",
  "-c",
  "exec </dev/null >/dev/null 2>&1; trap '' TERM; while :; do /usr/bin/sleep 86400 & wait; done",
];

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
  // Awaited below (or in the clean-up): a failure meanwhile is not an unhandled one.
  fenced.catch(() => undefined);
  try {
    const root = rootPath(context.paths, given.name);
    const caps = tmpfsCaps(template.resourceLimits.memoryMax);
    refuseSsh(template);
    const bundle = bundlePath(context.paths, given.name);
    const layout = await timed(clock, "start: root", async () => {
      await mountRoot(root, caps.root);
      await writeSandboxFilter(context.paths, given.name, template.seccomp.allow);
      await makeEntryDir(context.paths, given.name, bundle);
      const binds = await layOutHostRoot(context, given, root, template);
      await writeFile(join(root, "etc/ld.so.preload"), `${statxShimInside}\n`, { mode: 0o644 });
      return binds;
    });
    const binds = await timed(clock, "start: binds", async () => [
      ...layout,
      { source: join(bundle, "entry"), target: entryDirInside, readOnly: true },
      // gVisor's /proc is its own: nothing of the host's keys to mask there. The way in is /.forage.
      ...(await sandboxBinds(context, given, template, { pinnedBinds: true })).filter(
        (bind) =>
          !bind.target.startsWith("/proc/") && bind.target !== enterMountPath && bind.target !== filterMountPath,
      ),
      ...secretsBinds(context, given),
    ]);
    staged = await timed(clock, "start: stage binds", async () => {
      await recordBinds(bundle, binds);
      return stageBinds(binds);
    });
    const { tasksMax } = template.resourceLimits;
    cgroup = await timed(clock, "start: cgroup", () =>
      createSandboxCgroup(sandboxCgroupName(given), {
        ...template.resourceLimits,
        tasksMax: gvisorHostTasks(tasksMax),
      }),
    );
    const metadata = await fenced;
    await writeFile(
      join(bundle, "config.json"),
      JSON.stringify(
        sandboxSpec({
          hostname: given.name,
          root,
          binds: staged.binds,
          networkNamespacePath: link.namespacePath,
          init: [enterInside, filterInside, ...reaper],
          user: { uid: given.uid, gid: given.gid },
          rlimits: processRlimits(tasksMax),
          tmpfsBytes: { tmp: caps.tmp, devShm: caps.devShm },
          env: { PATH: "/usr/bin:/bin", HOME: "/" },
        }),
      ),
      { mode: 0o600 },
    );
    await recordStartedWith(context.paths, given.name, runsc);
    if (runsc.stack === "sandbox") await netstackNamespaceCheck(link.namespacePath);
    await recordTaskLimit(context.paths, given.name, tasksMax);
    guarded = timed(clock, "start: network guard (concurrent)", () =>
      startNetworkGuard(context, metadata, link.namespacePath),
    );
    guarded.catch(() => undefined);
    const groups = cgroup.procsFiles;
    const pid = await timed(clock, "start: runsc run", () =>
      runDetached(runsc, containerId(given), bundle, runscLogPath(context.paths, given.name), (argv) =>
        joinCgroupArgv(groups, argv),
      ),
    );
    // The gofer holds its own copies of the staged binds now.
    await staged.release();
    return {
      ...(await timed(clock, "start: wait for the guard", () => guarded ?? Promise.resolve(metadata))),
      pid,
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

/** gVisor's sandboxes run no sshd yet: refused at up (preflight) and at every start (the template may have changed). */
export function refuseSsh(template: TemplateModel): void {
  if (template.ssh)
    throw new SandboxError(
      `template ${template.name} has ssh: the gvisor runtime has no sshd yet; use forage-ctl attach or shell, or another runtime`,
      "usage",
    );
}

/** The bundle's entry directory: forage-enter, the sandbox's filter and the statx shim, root's and read-only. */
async function makeEntryDir(paths: RuntimePaths, name: string, bundle: string): Promise<void> {
  const dir = join(bundle, "entry");
  await mkdir(dir, { recursive: true, mode: 0o755 });
  await chmod(bundle, 0o700);
  await copyFile(enterHelperPath(), join(dir, "enter"));
  await chmod(join(dir, "enter"), 0o555);
  await copyFile(sandboxFilterPath(paths, name), join(dir, "seccomp.bpf"));
  await chmod(join(dir, "seccomp.bpf"), 0o444);
  await copyFile(join(packageRoot(), "dist/native/gvisor-statx.so"), join(dir, "gvisor-statx.so"));
  await chmod(join(dir, "gvisor-statx.so"), 0o444);
}

/** How long after a stop's TERM the terminals still held are hung up (see hangUpTerminals). */
const hangUpAfterMs = 500;

/**
 * SIGHUP, then SIGCONT, to every process inside that holds a terminal: what Linux does to a
 * terminal's session when its master side closes, and gVisor does not. The pane shells of a
 * stopped tmux server (interactive bash ignores TERM) would otherwise sit out the whole grace. On
 * nspawn they get the kernel's HUP the moment tmux exits; here they get it half a second after
 * the TERM, so a TERM handler has no less time than on nspawn.
 */
async function hangUpTerminals(runsc: Runsc, id: string): Promise<void> {
  for (const pid of await processesWithTerminal(runsc, id))
    for (const signal of ["HUP", "CONT"])
      await runscCommand(runsc, ["kill", `--pid=${pid}`, id, signal], "hang up a terminal").catch(() => undefined);
}

/**
 * Stops the sandbox: SIGTERM to every process inside but PID 1 (which ignores it, see reaper),
 * the terminals still held hung up after half a second (hangUpTerminals), up to `graceSeconds`
 * for them to end, then runsc's forced delete (the sandbox and its gofer);
 * then its root, bundle, filter, link, table and cgroup. Every step is tried even when one fails
 * (the first failure is thrown at the end), the link before its table, the cgroup last: removing
 * it kills whatever of runsc is still in it. Idempotent.
 */
export async function stopGvisor(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  runsc: Runsc,
  graceSeconds: number,
): Promise<void> {
  const id = containerId(metadata);
  const failures: unknown[] = [];
  const step = async (work: () => Promise<unknown>): Promise<void> => {
    await work().catch((error: unknown) => void failures.push(error));
  };
  await step(async () => {
    const state = await containerState(runsc, id);
    if (state === undefined) return;
    if (state.status === "running") {
      await runscCommand(runsc, ["kill", "--all", id, "TERM"], "ask the sandbox's processes to end").catch(
        () => undefined,
      );
      for (let waited = 0; waited < graceSeconds * 1000; waited += 100) {
        if ((await othersRunning(runsc, id)) === 0) break;
        if (waited === hangUpAfterMs) await hangUpTerminals(runsc, id);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    await removeContainer(runsc, id, metadata.cgroup, state.status);
  });
  await step(() => unmountRoot(rootPath(context.paths, metadata.name)));
  await step(() => rm(bundlePath(context.paths, metadata.name), { recursive: true, force: true }));
  await step(() => removeSandboxFilter(context.paths, metadata.name));
  await step(() => removeLink(linkOf(context, metadata)));
  await step(() => stopNetwork(context, metadata));
  if (metadata.cgroup !== null) {
    const cgroup = metadata.cgroup;
    await step(() => removeSandboxCgroup(cgroup));
  }
  if (failures.length > 0) throw failures[0];
}

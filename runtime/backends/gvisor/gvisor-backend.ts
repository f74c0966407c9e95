import type { TemplateModel } from "../../../generator/model/model.js";
import { cgroupLimits } from "../../cgroups/cgroup-limits.js";
import type { RuntimeContext } from "../../core/context.js";
import { SandboxError } from "../../core/errors.js";
import { resolveAgentPrograms } from "../../provision/host-programs.js";
import { commandOptions } from "../../seccomp/exec-args.js";
import type { SandboxMetadata } from "../../state/metadata.js";
import type { Backend, Entry } from "../backend.js";
import { hostRootGaps } from "../shared/host-root-gaps.js";
import { hostRootInside } from "../shared/host-root-layout.js";
import { hostToolsUnavailable } from "../shared/host-tools.js";
import { linkOf } from "../../gates/network/sandbox-network.js";
import { restoreGvisor, savedCheckpoint, saveGvisor } from "./checkpoint.js";
import { choosePlatform } from "./platform.js";
import { containerId, enterInside, filterInside, refuseSsh, startGvisor, stopGvisor } from "./gvisor-sandbox.js";
import { startedPlatform, startedStack } from "./started-with.js";
import { startedTaskLimit } from "./task-limit.js";
import { bundlePath, findRunsc, runscArgs, runscStateRoot, sentryRuns, type Runsc } from "./runsc.js";

/**
 * What forage-enter starts with inside (`runsc exec` gives a new process the capabilities it is
 * told, none by default for a spec like ours): enough to drop to the agent, make its terminal and
 * keep what `--keep-caps` names for root (sshd); forage-enter drops every other one before the command.
 */
const entryCapabilities = [
  "CAP_CHOWN",
  "CAP_DAC_OVERRIDE",
  "CAP_FOWNER",
  "CAP_FSETID",
  "CAP_KILL",
  "CAP_SETGID",
  "CAP_SETUID",
  "CAP_SETPCAP",
  "CAP_NET_BIND_SERVICE",
  "CAP_SYS_CHROOT",
  "CAP_AUDIT_WRITE",
];

/** The installed runsc and the platform a sandbox of `template` gets here (refused with what to do). */
async function runscPlatform(
  context: RuntimeContext,
  template: TemplateModel,
): Promise<Omit<Runsc, "stack" | "namespace">> {
  const program = await findRunsc();
  if (program === undefined)
    throw new SandboxError("runsc (gVisor) is not installed (Debian/Ubuntu: apt-get install runsc)", "usage");
  const stateRoot = runscStateRoot(context.paths);
  return { program, stateRoot, platform: await choosePlatform(program, template.gvisor.platform, stateRoot) };
}

/** runsc for starting `metadata`'s sandbox of `template`: its platform, the stack the template asks for, its namespace. */
async function runscFor(context: RuntimeContext, template: TemplateModel, metadata: SandboxMetadata): Promise<Runsc> {
  return {
    ...(await runscPlatform(context, template)),
    stack: template.gvisor.network,
    namespace: linkOf(context, metadata).namespacePath,
  };
}

/**
 * runsc for an existing sandbox: the stack it was started with (where runsc's control socket is)
 * and its platform (which only a restore uses: state, exec, kill and delete take none).
 */
async function runscOf(context: RuntimeContext, metadata: SandboxMetadata): Promise<Runsc> {
  const platform = await startedPlatform(context.paths, metadata.name);
  return {
    program: (await findRunsc()) ?? "runsc",
    stateRoot: runscStateRoot(context.paths),
    platform: platform === "kvm" || platform === "systrap" ? platform : "ptrace",
    stack: (await startedStack(context.paths, metadata.name)) ?? "host",
    namespace: linkOf(context, metadata).namespacePath,
  };
}

/**
 * `runsc exec` as root inside, then forage-enter --inside: a new session, the agent's uid (or
 * root with only the kept capabilities), no_new_privs, the sandbox's filter, a clean environment,
 * a terminal made inside when asked. EVENT_NOPOLL: tmux's libevent spins on poll() under this
 * gVisor (POLLNVAL on a closed client's socket, forever); select() does not.
 */
function entryArgv(runsc: Runsc, id: string, entry: Entry, tasksMax: number | null | undefined): string[] {
  return runscArgs(runsc, [
    "exec",
    ...entryCapabilities.flatMap((cap) => ["--cap", cap]),
    "--user=0:0",
    "--cwd=/",
    id,
    enterInside,
    "--inside",
    ...commandOptions({ ...entry, env: { ...entry.env, EVENT_NOPOLL: "1" } }),
    // The sandbox's tasksMax, as gVisor's kernel counts it (task-limit.ts). A sandbox started
    // before it was recorded has none: its processes are held by its cgroup alone.
    ...(typeof tasksMax === "number" ? [`--nproc=${tasksMax}`] : []),
    filterInside,
    ...entry.command,
  ]);
}

/** True when the sandbox's sentry runs (runsc.ts, sentryRuns). */
async function isRunning(context: RuntimeContext, metadata: SandboxMetadata): Promise<boolean> {
  if (metadata.pid === null) return false;
  return sentryRuns(
    runscStateRoot(context.paths),
    metadata.pid,
    bundlePath(context.paths, metadata.name),
    containerId(metadata),
  );
}

/**
 * gVisor: the host's /usr as for nspawn, but every system call the agent makes is answered by
 * gVisor's own kernel (runsc's sentry, itself confined by runsc's seccomp filter), not the host's.
 * Files reach it through runsc's gofer; the network is the sandbox's namespace, veth and host-side
 * table as for nspawn, answered by gVisor's own stack or, with gvisor.network "host", by the
 * host's in that namespace (netstack.ts).
 */
export const gvisorBackend: Backend = {
  name: "gvisor",
  capabilities: {
    nixosConfig: false,
    networkIsolation: true,
    ephemeralRoot: true,
    ssh: false,
    generatedFiles: true,
    resourceLimits: true,
    gracefulShutdown: true,
    pinnedBinds: true,
    ownInit: false,
    checkpoint: true,
  },
  inside: hostRootInside,
  describe: async () =>
    "gVisor (runsc) on a tmpfs root with the host's /usr read-only: a second kernel between the agent and the host's",
  async unavailable() {
    if ((await findRunsc()) === undefined)
      return "runsc (gVisor) is not installed (Debian/Ubuntu: apt-get install runsc)";
    return hostToolsUnavailable(["ip", "mount", "umount"]);
  },
  async preflight(context, template) {
    refuseSsh(template);
    await runscPlatform(context, template);
    await resolveAgentPrograms(template);
    for (const gap of hostRootGaps(template)) context.warn(gap);
  },
  start: async (context, metadata, template) =>
    startGvisor(context, metadata, template, await runscFor(context, template, metadata)),
  stop: async (context, metadata, graceSeconds) =>
    stopGvisor(context, metadata, await runscOf(context, metadata), graceSeconds),
  isRunning,
  async enter(context, metadata, entry) {
    if (!(await isRunning(context, metadata))) return undefined;
    const tasksMax = await startedTaskLimit(context.paths, metadata.name);
    return entryArgv(await runscOf(context, metadata), containerId(metadata), entry, tasksMax);
  },
  // gVisor's kernel keeps no record of what the filter refused.
  refusals: async () => null,
  networkNamespace: async (context, metadata) => linkOf(context, metadata).namespacePath,
  async kernel(context, metadata) {
    const platform = await startedPlatform(context.paths, metadata.name);
    const stack = await startedStack(context.paths, metadata.name);
    const kernel = `gVisor's (runsc${platform === undefined ? "" : `, platform ${platform}`}; the sandbox's filter inside it too)`;
    if (stack === undefined) return kernel;
    return `${kernel}; network: ${stack === "sandbox" ? "gVisor's own stack (netstack) on the sandbox's veth: no socket call reaches the host's kernel" : "the host's stack in the sandbox's namespace (runsc --network=host): socket calls reach the host's kernel"}`;
  },
  // Memory and CPU are its cgroup's; tasks are what gVisor's kernel counts (the cgroup's pids.max
  // holds gVisor's own threads: task-limit.ts).
  async limits(context, metadata) {
    if (metadata.cgroup === null) return null;
    const held = await cgroupLimits(metadata.cgroup);
    const tasksMax = await startedTaskLimit(context.paths, metadata.name);
    return tasksMax === undefined ? held : { ...held, tasksMax };
  },
  destroy: async () => undefined,
  checkpoints: {
    save: async (context, metadata, options) =>
      saveGvisor(context, metadata, await runscOf(context, metadata), containerId(metadata), options),
    saved: savedCheckpoint,
    restore: async (context, metadata) =>
      restoreGvisor(context, metadata, await runscOf(context, metadata), containerId(metadata)),
  },
};

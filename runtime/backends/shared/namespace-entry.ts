import { cgroupLimits } from "../../cgroups/cgroup-limits.js";
import { execCgroupProcs } from "../../cgroups/exec-cgroup.js";
import type { RuntimeContext } from "../../core/context.js";
import { execArgs } from "../../seccomp/exec-args.js";
import { auditIdOf, sandboxRefusals } from "../../seccomp/kernel-refusals.js";
import type { SandboxMetadata } from "../../state/metadata.js";
import type { Backend } from "../backend.js";

/** What status says of the kernel of every runtime whose sandbox is the host's processes in namespaces. */
export const sharedKernel =
  "the host's, shared (namespaces, the sandbox's seccomp filter); network: the host's stack in the sandbox's namespace";

/** Finds a running sandbox's PID 1 on the host, or undefined when it is not running. */
export type LeaderFinder = (context: RuntimeContext, metadata: SandboxMetadata) => Promise<number | undefined>;

/**
 * Entry for runtimes whose sandbox has a PID 1 on the host (every nspawn one): forage-enter joins
 * its cgroups (so the limits apply to what is started later too) and its namespaces, drops to the
 * agent and loads the sandbox's filter (seccomp/exec-args.ts). The kernel's records of that filter's
 * refusals carry an audit id derived from the same PID.
 */
export function namespaceEntry(leader: LeaderFinder): Pick<Backend, "enter" | "refusals" | "limits"> {
  return {
    // Every process of the sandbox is the host's and in its groups: their limits are the sandbox's.
    limits: async (_context, metadata) => (metadata.cgroup === null ? null : cgroupLimits(metadata.cgroup)),
    async enter(context, metadata, entry) {
      const pid = await leader(context, metadata);
      if (pid === undefined) return undefined;
      return execArgs(context.paths, {
        ...entry,
        sandbox: metadata.name,
        leaderPid: pid,
        cgroupProcs: metadata.cgroup === null ? [] : await execCgroupProcs(metadata.cgroup, pid),
        auditId: auditIdOf(pid),
      });
    },
    async refusals(context, metadata) {
      if (metadata.startedAt === null) return null;
      const pid = await leader(context, metadata);
      return pid === undefined ? null : sandboxRefusals(pid, metadata.startedAt);
    },
  };
}

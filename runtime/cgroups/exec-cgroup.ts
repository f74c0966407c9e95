import { cgroupHierarchies } from "./hierarchies.js";
import type { SandboxCgroup } from "./sandbox-cgroup.js";

/**
 * The cgroup.procs files a command started from the host (exec, attach, init commands) joins, so
 * it lands where the container's own processes are: in the container init's group on every
 * hierarchy (the command also enters its cgroup namespace, which nspawn makes, so
 * `/proc/self/cgroup` inside shows no host paths). A group the init reports outside the
 * sandbox's recorded groups is not trusted (the sandbox's root could move its init on the
 * hierarchies mounted writable inside); the recorded group is used instead.
 */
export async function execCgroupProcs(cgroup: SandboxCgroup, leaderPid: number): Promise<string[]> {
  const leaderGroups = (await cgroupHierarchies(leaderPid).catch(() => [])).map((h) => `${h.mount}${h.path}`);
  return cgroup.directories.map((dir) => {
    const inside = leaderGroups.find((group) => group.startsWith(`${dir}/`) && !group.split("/").includes(".."));
    return `${inside ?? dir}/cgroup.procs`;
  });
}

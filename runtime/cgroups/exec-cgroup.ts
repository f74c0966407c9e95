import { cgroupHierarchies } from "./hierarchies.js";
import { joinCgroupArgv, type SandboxCgroup } from "./sandbox-cgroup.js";

/**
 * Argv that puts a command started from the host (exec, attach, init commands) where the
 * container's own processes are: in the container init's group on every hierarchy, and in its
 * cgroup namespace (nspawn makes one), so `/proc/self/cgroup` inside shows no host paths. A group
 * the init reports outside the sandbox's recorded groups is not trusted (the sandbox's root could
 * move its init on the hierarchies mounted writable inside); the recorded group is used instead.
 */
export async function execCgroupArgv(cgroup: SandboxCgroup, leaderPid: number, argv: string[]): Promise<string[]> {
  const leaderGroups = (await cgroupHierarchies(leaderPid).catch(() => [])).map((h) => `${h.mount}${h.path}`);
  const procsFiles = cgroup.directories.map((dir) => {
    const inside = leaderGroups.find((group) => group.startsWith(`${dir}/`) && !group.split("/").includes(".."));
    return `${inside ?? dir}/cgroup.procs`;
  });
  return joinCgroupArgv(procsFiles, ["nsenter", `--target=${leaderPid}`, "--cgroup", "--", ...argv]);
}

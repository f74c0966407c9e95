import { cgroupHierarchies } from "../../cgroups/hierarchies.js";
import type { SandboxCgroup } from "../../cgroups/sandbox-cgroup.js";
import { ContainerError } from "../shared/container-error.js";
import { containerUnit } from "./container-unit.js";

/**
 * The container unit's own group on every hierarchy its main process (systemd-nspawn) is in:
 * that process's group cut at the `container@f<N>.service` component. nspawn runs in
 * `<unit>/supervisor` (on a legacy hierarchy in the unit's group itself) and the container's
 * init in `<unit>/payload/…`; recorded as the sandbox's cgroup, it is where exec-cgroup.ts looks
 * for the init's own group, so `exec`, `shell` and the init commands run inside the unit, under
 * its MemoryMax, TasksMax and CPUQuota. Read from /proc, not `systemctl show -p ControlGroup`:
 * that names the group on systemd's own hierarchy only, and on a cgroup v1 or hybrid host the
 * limits live on the memory, pids and cpu hierarchies, each mounted elsewhere. A hierarchy on
 * which systemd keeps the unit in no group of its own (a controller it does not use) is left out.
 * The groups are systemd's: nothing of forage-ctl removes them (it stops the unit instead).
 *
 * @example unitCgroup("f3", 812) // { directories: ["/sys/fs/cgroup/system.slice/system-container.slice/container@f3.service"], … }
 */
export async function unitCgroup(containerName: string, mainPid: number): Promise<SandboxCgroup> {
  const unit = containerUnit(containerName);
  const directories: string[] = [];
  for (const hierarchy of await cgroupHierarchies(mainPid)) {
    const parts = hierarchy.path.split("/");
    const at = parts.indexOf(unit);
    if (at > 0) directories.push(`${hierarchy.mount}${parts.slice(0, at + 1).join("/")}`);
  }
  // Without the unit's group, commands started later would escape the unit's limits: refused.
  if (directories.length === 0)
    throw new ContainerError(
      `${unit}'s main process (pid ${mainPid}) is in no cgroup of the unit (/proc/${mainPid}/cgroup)`,
    );
  return { procsFiles: directories.map((dir) => `${dir}/cgroup.procs`), directories };
}

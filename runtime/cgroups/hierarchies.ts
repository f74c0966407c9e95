import { readFile } from "node:fs/promises";

/** One cgroup hierarchy a process belongs to, and where the host has it mounted. */
export interface CgroupHierarchy {
  /** The controllers field of /proc/PID/cgroup: "memory", "cpu,cpuacct", "name=systemd", or "" (v2). */
  controllers: string;
  /** Where the hierarchy's root is mounted, e.g. "/sys/fs/cgroup/memory" or "/sys/fs/cgroup/unified". */
  mount: string;
  /** The process's group inside the hierarchy, e.g. "/forage/dev" ("" for the root). */
  path: string;
  version: 1 | 2;
}

/**
 * Every hierarchy `pid` is in (one line of /proc/PID/cgroup each), with its mount point. On a
 * hybrid host that is each v1 controller, name=systemd *and* the unified v2 tree: a sandbox must
 * have a group in each, or its processes stay in the host's group there (and nspawn puts its
 * payload at the hierarchy's root, shared with every other sandbox). Hierarchies the host has not
 * mounted are left out.
 */
export async function cgroupHierarchies(pid: number | "self" = "self"): Promise<CgroupHierarchy[]> {
  const [membership, mountinfo] = await Promise.all([
    readFile(`/proc/${pid}/cgroup`, "utf8"),
    readFile("/proc/self/mountinfo", "utf8"),
  ]);
  const mounts = cgroupMounts(mountinfo);
  const found: CgroupHierarchy[] = [];
  for (const line of membership.split("\n")) {
    const match = /^\d+:([^:]*):(\/.*)$/.exec(line);
    if (match === null) continue;
    const [, controllers = "", path = "/"] = match;
    const version = controllers === "" ? 2 : 1;
    const first = controllers.split(",")[0] ?? "";
    const mount = mounts.find((m) => (version === 2 ? m.version === 2 : m.options.includes(first)));
    if (mount !== undefined) found.push({ controllers, mount: mount.point, path: path === "/" ? "" : path, version });
  }
  return found;
}

interface CgroupMount {
  point: string;
  version: 1 | 2;
  options: string[];
}

/** cgroup and cgroup2 mounts of the host's whole hierarchies (root "/"), from mountinfo. */
function cgroupMounts(mountinfo: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const line of mountinfo.split("\n")) {
    // id parent major:minor root point options [optional…] - fstype source superoptions
    const [left = "", right = ""] = line.split(" - ");
    const [, , , root, point] = left.split(" ");
    const [fstype, , superOptions = ""] = right.split(" ");
    if (root !== "/" || point === undefined || (fstype !== "cgroup" && fstype !== "cgroup2")) continue;
    mounts.push({
      point: unescapeMountPath(point),
      version: fstype === "cgroup2" ? 2 : 1,
      options: superOptions.split(","),
    });
  }
  return mounts;
}

/** mountinfo writes space, tab, newline and backslash as octal escapes (\040…). */
function unescapeMountPath(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

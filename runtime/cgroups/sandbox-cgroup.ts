import { mkdir, readdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { pathUnder } from "../core/names.js";
import { cgroupHierarchies, type CgroupHierarchy } from "./hierarchies.js";
import { parseSize } from "./sizes.js";

/** A template's resource limits, as the model gives them (null: unlimited). */
export interface ResourceLimits {
  cpuQuota: string | null;
  memoryMax: string | null;
  tasksMax: number | null;
}

/** The cgroup(s) a sandbox's processes live in: one directory per hierarchy the host has. */
export interface SandboxCgroup {
  /** `cgroup.procs` files a process writes its pid to, to join the sandbox. */
  procsFiles: string[];
  directories: string[];
}

/**
 * The sandbox's group name, `<name>.f<slot>`: readable, and unique on the host because slots are
 * claimed host-wide, where names are not (two state directories may each have a sandbox `web`,
 * and one's stop would otherwise kill the other's processes with the group they shared).
 */
export function sandboxCgroupName(sandbox: { name: string; slot: number }): string {
  return `${sandbox.name}.f${sandbox.slot}`;
}

/**
 * Creates the sandbox's group in every hierarchy, under this process's own group there (so a
 * service manager's delegation is respected), and writes its limits. Every process of the
 * sandbox joins all of them: nspawn at start, and each exec, so agents started later are limited
 * too and none stays in the host's group on a hierarchy we forgot.
 */
export async function createSandboxCgroup(name: string, limits: ResourceLimits): Promise<SandboxCgroup> {
  const hierarchies = await cgroupHierarchies();
  // Pure v2 (one hierarchy) carries the controllers; on a hybrid host the unified tree has none.
  const pureV2 = hierarchies.every((h) => h.version === 2);
  const directories: string[] = [];
  for (const hierarchy of hierarchies) {
    const base = `${hierarchy.mount}${hierarchy.path}`;
    const parent = pathUnder(base, "forage");
    await mkdir(parent, { recursive: true });
    const dir = pathUnder(parent, name);
    await mkdir(dir, { recursive: true });
    if (isCpuset(hierarchy)) await inheritCpuset(base, [parent, dir]);
    // Controllers must be enabled on the way down; the parent holds no processes of its own.
    if (pureV2) await writeFile(`${parent}/cgroup.subtree_control`, "+memory +pids +cpu").catch(() => undefined);
    for (const [file, value] of limitFiles(hierarchy, pureV2, limits)) await writeFile(join(dir, file), value);
    directories.push(dir);
  }
  return { procsFiles: directories.map((d) => `${d}/cgroup.procs`), directories };
}

/** The limit files a hierarchy takes, with their values: v1 per controller, or v2's. */
function limitFiles(hierarchy: CgroupHierarchy, pureV2: boolean, limits: ResourceLimits): [string, string][] {
  const has = (controller: string): boolean =>
    hierarchy.version === 2 ? pureV2 : hierarchy.controllers.split(",").includes(controller);
  const files: [string, string][] = [];
  if (limits.memoryMax !== null && has("memory")) {
    files.push([hierarchy.version === 2 ? "memory.max" : "memory.limit_in_bytes", String(parseSize(limits.memoryMax))]);
  }
  if (limits.tasksMax !== null && has("pids")) files.push(["pids.max", String(limits.tasksMax)]);
  if (limits.cpuQuota !== null && has("cpu")) {
    const quota = percent(limits.cpuQuota) * 1000;
    if (hierarchy.version === 2) files.push(["cpu.max", `${quota} 100000`]);
    else files.push(["cpu.cfs_period_us", "100000"], ["cpu.cfs_quota_us", String(quota)]);
  }
  return files;
}

function isCpuset(hierarchy: CgroupHierarchy): boolean {
  return hierarchy.version === 1 && hierarchy.controllers.split(",").includes("cpuset");
}

/** A new v1 cpuset group starts with no CPUs and no memory nodes: nothing could join it. */
async function inheritCpuset(base: string, dirs: string[]): Promise<void> {
  let from = base;
  for (const dir of dirs) {
    for (const file of ["cpuset.cpus", "cpuset.mems"]) {
      // Read and written whole: copyFile's in-kernel copy does not reach cgroupfs's write handler.
      if ((await readFile(join(dir, file), "utf8")).trim() === "")
        await writeFile(join(dir, file), await readFile(join(from, file), "utf8"));
    }
    from = dir;
  }
}

/**
 * Kills every process still in the sandbox's groups (and the groups nspawn or a NixOS init made
 * under them). Processes can outlive systemd-nspawn (its init is reparented when nspawn itself is
 * killed), so the cgroup, not the process tree, is what says what belongs to the sandbox.
 */
export async function killSandboxProcesses(cgroup: SandboxCgroup): Promise<void> {
  for (let round = 0; round < 50; round++) {
    const pids = await cgroupPids(cgroup.directories);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    await sleep(20);
  }
}

async function cgroupPids(directories: string[]): Promise<number[]> {
  const all = new Set<number>();
  for (const dir of await withDescendants(directories)) {
    const text = await readFile(`${dir}/cgroup.procs`, "utf8").catch(() => "");
    for (const line of text.split("\n")) if (/^\d+$/.test(line)) all.add(Number(line));
  }
  return [...all];
}

/** The directories and every group below them, deepest first (the order rmdir needs). */
async function withDescendants(directories: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const dir of directories) {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    const children = entries.filter((entry) => entry.isDirectory()).map((entry) => join(dir, entry.name));
    found.push(...(await withDescendants(children)), dir);
  }
  return found;
}

/** Removes the sandbox's groups (and those made under them) once their processes are gone; absent is fine. */
export async function removeSandboxCgroup(cgroup: SandboxCgroup): Promise<void> {
  await killSandboxProcesses(cgroup);
  for (const dir of await withDescendants(cgroup.directories)) await removeGroup(dir);
}

async function removeGroup(dir: string): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      await rmdir(dir);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return;
      if (code !== "EBUSY") throw error;
      await sleep(20);
    }
  }
}

/**
 * Argv that joins the given groups (their `cgroup.procs` files) and then execs `argv`. The
 * script is constant; the files and the command arrive as arguments.
 */
export function joinCgroupArgv(procsFiles: string[], argv: string[]): string[] {
  const script = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';
  return ["/bin/sh", "-c", script, "forage-cgroup", ...procsFiles, "--", ...argv];
}

function percent(quota: string): number {
  return Number(quota.replace("%", ""));
}

import { access, mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { pathUnder } from "../names.js";

/** A template's resource limits, as the model gives them. */
export interface ResourceLimits {
  cpuQuota: string | null;
  memoryMax: string | null;
  tasksMax: number | null;
}

/** The cgroup(s) a sandbox's processes live in: one directory per v1 controller, or one for v2. */
export interface SandboxCgroup {
  /** `cgroup.procs` files a process writes its pid to, to join the sandbox. */
  procsFiles: string[];
  directories: string[];
}

const cgroupRoot = "/sys/fs/cgroup";
const v1Controllers = ["memory", "pids", "cpu"] as const;

/**
 * Creates the sandbox's cgroup under this process's own cgroup (so a service manager's
 * delegation is respected) and writes its limits. Every process of the sandbox joins it:
 * nspawn at start, and each exec, so agents started later are limited too.
 */
export async function createSandboxCgroup(name: string, limits: ResourceLimits): Promise<SandboxCgroup> {
  if (await isUnified()) return createV2(name, limits);
  const directories: string[] = [];
  for (const controller of v1Controllers) {
    const base = `${cgroupRoot}/${controller}${await ownPath(controller)}`;
    const dir = pathUnder(base, "forage", name);
    await mkdir(dir, { recursive: true });
    directories.push(dir);
  }
  const [memory, pids, cpu] = directories as [string, string, string];
  if (limits.memoryMax !== null) {
    await writeFile(`${memory}/memory.limit_in_bytes`, String(bytes(limits.memoryMax)));
  }
  if (limits.tasksMax !== null) await writeFile(`${pids}/pids.max`, String(limits.tasksMax));
  if (limits.cpuQuota !== null) {
    await writeFile(`${cpu}/cpu.cfs_period_us`, "100000");
    await writeFile(`${cpu}/cpu.cfs_quota_us`, String(percent(limits.cpuQuota) * 1000));
  }
  return { procsFiles: directories.map((d) => `${d}/cgroup.procs`), directories };
}

async function createV2(name: string, limits: ResourceLimits): Promise<SandboxCgroup> {
  const parent = pathUnder(`${cgroupRoot}${await ownPath("")}`, "forage");
  await mkdir(parent, { recursive: true });
  // Controllers must be enabled on the way down; the parent holds no processes of its own.
  await writeFile(`${parent}/cgroup.subtree_control`, "+memory +pids +cpu").catch(() => undefined);
  const dir = pathUnder(parent, name);
  await mkdir(dir, { recursive: true });
  if (limits.memoryMax !== null) await writeFile(`${dir}/memory.max`, String(bytes(limits.memoryMax)));
  if (limits.tasksMax !== null) await writeFile(`${dir}/pids.max`, String(limits.tasksMax));
  if (limits.cpuQuota !== null) await writeFile(`${dir}/cpu.max`, `${percent(limits.cpuQuota) * 1000} 100000`);
  return { procsFiles: [`${dir}/cgroup.procs`], directories: [dir] };
}

/**
 * Kills every process still in the sandbox's cgroup. Processes can outlive systemd-nspawn (its
 * init is reparented when nspawn itself is killed), so the cgroup, not the process tree, is what
 * says what belongs to the sandbox.
 */
export async function killSandboxProcesses(cgroup: SandboxCgroup): Promise<void> {
  for (let round = 0; round < 50; round++) {
    const pids = await cgroupPids(cgroup);
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

async function cgroupPids(cgroup: SandboxCgroup): Promise<number[]> {
  const all = new Set<number>();
  for (const file of cgroup.procsFiles) {
    const text = await readFile(file, "utf8").catch(() => "");
    for (const line of text.split("\n")) if (/^\d+$/.test(line)) all.add(Number(line));
  }
  return [...all];
}

/** Removes the sandbox's cgroup directories once their processes are gone; absent is fine. */
export async function removeSandboxCgroup(cgroup: SandboxCgroup): Promise<void> {
  await killSandboxProcesses(cgroup);
  for (const dir of cgroup.directories) {
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        await rmdir(dir);
        break;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOENT") break;
        if (code !== "EBUSY") throw error;
        await sleep(20);
      }
    }
  }
}

/**
 * Argv that joins the cgroup and then execs `argv`. The script is constant; the cgroup files
 * and the command arrive as arguments.
 */
export function joinCgroupArgv(cgroup: SandboxCgroup, argv: string[]): string[] {
  const script = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';
  return ["/bin/sh", "-c", script, "forage-cgroup", ...cgroup.procsFiles, "--", ...argv];
}

async function isUnified(): Promise<boolean> {
  try {
    await access(`${cgroupRoot}/cgroup.controllers`);
    return true;
  } catch {
    return false;
  }
}

/** This process's cgroup path for a v1 controller ("" for v2), e.g. "/process_api/abc". */
async function ownPath(controller: string): Promise<string> {
  const lines = (await readFile("/proc/self/cgroup", "utf8")).split("\n");
  for (const line of lines) {
    const [, controllers, path] = line.split(":");
    const matches = controller === "" ? controllers === "" : (controllers ?? "").split(",").includes(controller);
    if (matches && path !== undefined) return path === "/" ? "" : path;
  }
  return "";
}

function bytes(size: string): number {
  const units: Record<string, number> = { K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 };
  const unit = size.at(-1) ?? "";
  return unit in units ? Number(size.slice(0, -1)) * (units[unit] ?? 1) : Number(size);
}

function percent(quota: string): number {
  return Number(quota.replace("%", ""));
}

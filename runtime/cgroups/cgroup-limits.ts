import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ResourceLimits, SandboxCgroup } from "./sandbox-cgroup.js";
import { formatSize } from "./sizes.js";

/** v1's "no memory limit": the page-rounded largest value, anything at or past 2^62 bytes. */
const v1Unlimited = 2 ** 62;

/**
 * The limits a running sandbox's groups hold now, read from the files createSandboxCgroup wrote
 * (v2's or v1's): what is in force, whatever the settings say since. A limit no group holds is
 * null (unlimited). Sizes come back in the largest unit that divides them ("96M").
 *
 * @example await cgroupLimits(metadata.cgroup) // { memoryMax: "96M", tasksMax: 32, cpuQuota: "50%" }
 */
export async function cgroupLimits(cgroup: SandboxCgroup): Promise<ResourceLimits> {
  const read = async (file: string): Promise<string | undefined> => {
    for (const dir of cgroup.directories) {
      const text = await readFile(join(dir, file), "utf8").catch(() => undefined);
      if (text !== undefined) return text.trim();
    }
    return undefined;
  };
  // v2's file or v1's, all read at once: each miss is a failed open on the thread pool.
  const [memoryV2, memoryV1, tasks, cpuV2, cpuV1] = await Promise.all(
    ["memory.max", "memory.limit_in_bytes", "pids.max", "cpu.max", "cpu.cfs_quota_us"].map(read),
  );
  return {
    memoryMax: memoryOf(memoryV2 ?? memoryV1),
    tasksMax: tasks === undefined || tasks === "max" ? null : Number(tasks),
    cpuQuota: cpuOf(cpuV2 ?? cpuV1),
  };
}

function memoryOf(value: string | undefined): string | null {
  if (value === undefined || value === "max" || Number(value) >= v1Unlimited) return null;
  return formatSize(Number(value));
}

/** v2's "QUOTA PERIOD" or v1's quota alone (its period is the 100000 µs forage writes). */
function cpuOf(value: string | undefined): string | null {
  const quota = value?.split(" ")[0];
  if (quota === undefined || quota === "max" || quota === "-1") return null;
  return `${Number(quota) / 1000}%`;
}

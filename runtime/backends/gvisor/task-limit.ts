import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { RuntimePaths } from "../../core/paths.js";
import { bundlePath } from "./runsc.js";

/*
 * tasksMax under gVisor. The sandbox's processes are gVisor's, not the host's: a host cgroup's
 * pids.max counts the threads of gVisor itself (its sentry and, on the ptrace platform, a stub
 * per address space), measured here at 148 for an idle sandbox and about 18 more per process.
 * Held to tasksMax, a template with tasksMax 64 or 96 could not even start, and 4096 meant about
 * 200 processes. So tasksMax is RLIMIT_NPROC inside, which gVisor's kernel enforces for the
 * agent's uid (there it counts the sandbox's processes alone; root inside is the user and is not
 * held), and the host cgroup holds gVisor's own threads to a bound that scales with it.
 */

/** Host threads gVisor may use for a sandbox of `tasksMax` tasks (null: unlimited). */
export function gvisorHostTasks(tasksMax: number | null): number | null {
  if (tasksMax === null) return null;
  return Math.min(512 + 32 * tasksMax, 4_194_304);
}

/** The OCI rlimits of the sandbox's PID 1 for `tasksMax` (none: unlimited). */
export function processRlimits(tasksMax: number | null): { type: string; hard: number; soft: number }[] {
  return tasksMax === null ? [] : [{ type: "RLIMIT_NPROC", hard: tasksMax, soft: tasksMax }];
}

/** Records the limit a start put in force, for every later entry (forage-enter --nproc) and status. */
export async function recordTaskLimit(paths: RuntimePaths, name: string, tasksMax: number | null): Promise<void> {
  await writeFile(join(bundlePath(paths, name), "tasks"), `${tasksMax ?? "unlimited"}\n`, { mode: 0o644 });
}

/** The limit the running sandbox was started with: a number, null (unlimited), or undefined (unknown). */
export async function startedTaskLimit(paths: RuntimePaths, name: string): Promise<number | null | undefined> {
  const text = await readFile(join(bundlePath(paths, name), "tasks"), "utf8").catch(() => "");
  if (text === "unlimited\n") return null;
  return /^[1-9][0-9]{0,9}\n$/.test(text) ? Number(text) : undefined;
}

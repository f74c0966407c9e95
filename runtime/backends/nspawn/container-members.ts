import { readdir, readFile, readlink } from "node:fs/promises";

/**
 * The processes a stop asks to end: every live process of the container's PID namespace (host
 * PIDs, read from the host's /proc) but its init and the placeholder. The namespace, not the
 * init's process tree, says what is inside: an exec'd program joined it and is nobody's child there.
 *
 * The placeholder is spared because nspawn's stub init (--as-pid2) ends when it does, and takes
 * every other process down with SIGKILL: TERMing it with the rest (as `kill -TERM -1` inside did)
 * left an agent no time to save anything, and a shell none to run its traps.
 */
export async function agentProcesses(leader: number, placeholder: number | undefined): Promise<number[]> {
  const namespace = await readlink(`/proc/${leader}/ns/pid`).catch(() => undefined);
  if (namespace === undefined) return [];
  const pids = (await readdir("/proc").catch(() => [] as string[])).filter((entry) => /^\d+$/.test(entry)).map(Number);
  const found: number[] = [];
  for (const pid of pids) {
    if (pid === leader || pid === placeholder) continue;
    if ((await readlink(`/proc/${pid}/ns/pid`).catch(() => undefined)) !== namespace) continue;
    // A zombie has ended; it only waits for the init to reap it.
    const state = fieldsAfterName(await readFile(`/proc/${pid}/stat`, "utf8").catch(() => ""))[0];
    if (state !== undefined && state !== "Z") found.push(pid);
  }
  return found;
}

/**
 * `pids` (host PIDs of the container's processes) as its own PID namespace numbers them, from
 * the last field of each one's NSpid line; a process gone meanwhile is left out.
 */
export async function namespacePids(pids: readonly number[]): Promise<number[]> {
  const inside: number[] = [];
  for (const pid of pids) {
    const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
    const last = /^NSpid:\s+(.*)$/m.exec(status)?.[1]?.trim().split(/\s+/).at(-1);
    if (last !== undefined && /^[1-9]\d*$/.test(last)) inside.push(Number(last));
  }
  return inside;
}

/** The placeholder: the init's oldest child (the stub init starts it first; orphans come later). */
export async function placeholderOf(leader: number): Promise<number | undefined> {
  const children = (await readFile(`/proc/${leader}/task/${leader}/children`, "utf8").catch(() => ""))
    .trim()
    .split(/\s+/)
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number);
  let oldest: { pid: number; started: bigint } | undefined;
  for (const pid of children) {
    // Field 22 of stat, the start time in clock ticks since boot (the 20th after the name).
    const started = fieldsAfterName(await readFile(`/proc/${pid}/stat`, "utf8").catch(() => ""))[19];
    if (started === undefined || !/^\d+$/.test(started)) continue;
    if (oldest === undefined || BigInt(started) < oldest.started) oldest = { pid, started: BigInt(started) };
  }
  return oldest?.pid;
}

/** The fields of a /proc/PID/stat line after `PID (name)`: the name may hold spaces and parentheses. */
function fieldsAfterName(stat: string): string[] {
  const end = stat.lastIndexOf(")");
  return end < 0
    ? []
    : stat
        .slice(end + 2)
        .trim()
        .split(" ");
}

import { readFile, readlink } from "node:fs/promises";

/** The container's PID 1 (nspawn's child in a new PID namespace), or undefined. */
export async function leaderOf(nspawnPid: number): Promise<number | undefined> {
  try {
    const children = (await readFile(`/proc/${nspawnPid}/task/${nspawnPid}/children`, "utf8")).trim().split(/\s+/);
    for (const child of children.filter((c) => c !== "").map(Number)) {
      const [mine, theirs] = await Promise.all([readNs("self"), readNs(String(child))]);
      if (theirs !== undefined && theirs !== mine) return child;
    }
  } catch {
    // nspawn is gone or not ours to read
  }
  return undefined;
}

async function readNs(pid: string): Promise<string | undefined> {
  return readlink(`/proc/${pid}/ns/pid`).catch(() => undefined);
}

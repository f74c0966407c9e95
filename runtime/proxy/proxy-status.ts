import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { RuntimePaths } from "../paths.js";
import type { ProxyCounters } from "./sandbox-proxy.js";

/** The proxy's health, for `forage-ctl proxy --status` and the daemon's `proxy` operation. */
export interface ProxyStatus {
  pid: number;
  port: number;
  startedAt: string;
  sandboxes: { name: string; address: string; agents: string[] }[];
  counters: ProxyCounters;
  /** Secret names whose keys are loaded (never the keys), and how often all were re-read. */
  keys: { loaded: string[]; reloads: number };
  auditLog: string;
}

/** Writes the status file atomically (0644: counters and names, nothing secret); null removes it. */
export async function writeProxyStatus(paths: RuntimePaths, status: ProxyStatus | null): Promise<void> {
  const path = paths.proxyStatusFile;
  if (status === null) return rm(path, { force: true });
  await mkdir(dirname(path), { recursive: true, mode: 0o755 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(status)}\n`, { mode: 0o644 });
  await rename(temporary, path);
}

/** The status of the proxy running on this host, or undefined when none runs (its process is gone). */
export async function readProxyStatus(paths: RuntimePaths): Promise<ProxyStatus | undefined> {
  const text = await readFile(paths.proxyStatusFile, "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  let status: ProxyStatus;
  try {
    status = JSON.parse(text) as ProxyStatus;
  } catch {
    return undefined;
  }
  return Number.isInteger(status.pid) && processAlive(status.pid) ? status : undefined;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

import { mkdir, rename, rm, writeFile } from "node:fs/promises";
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

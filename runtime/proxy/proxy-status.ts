import { isAlive } from "../core/process-alive.js";
import { chown, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Model } from "../../generator/model/model.js";
import { lookupGroupId, lookupHostUser } from "../core/host-user.js";
import type { RuntimePaths } from "../core/paths.js";
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

let writes = 0;

/**
 * Writes the status file atomically, 0640 for root and the group that may use forage-ctl (it
 * names sandboxes and secrets, like the state directory); null removes it.
 */
export async function writeProxyStatus(paths: RuntimePaths, status: ProxyStatus | null, group: number): Promise<void> {
  const path = paths.proxyStatusFile;
  if (status === null) return rm(path, { force: true });
  await mkdir(dirname(path), { recursive: true, mode: 0o755 });
  writes += 1;
  const temporary = `${path}.${process.pid}.${writes}.tmp`;
  await writeFile(temporary, `${JSON.stringify(status)}\n`, { mode: 0o640 });
  await chown(temporary, process.getuid?.() ?? 0, group).catch(() => undefined);
  await rename(temporary, path);
}

/** The group that may read the status: "forage" where the NixOS module made it, else the configured user's. */
export async function statusFileGroup(settings: Model): Promise<number> {
  return (await lookupGroupId("forage")) ?? (await lookupHostUser(settings.host.user))?.gid ?? 0;
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
  return Number.isInteger(status.pid) && isAlive(status.pid) ? status : undefined;
}

/** Whether the running proxy listens for sandbox `name` now, and where (its status file says). */
export async function servedByProxy(paths: RuntimePaths, name: string): Promise<{ served: boolean; address: string | null }> {
  const entry = (await readProxyStatus(paths))?.sandboxes.find((sandbox) => sandbox.name === name);
  return { served: entry !== undefined, address: entry?.address ?? null };
}

import { isAlive } from "../../core/process-alive.js";
import { mkdir, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import type { Model } from "../../../generator/model/model.js";
import { lookupGroupId, lookupHostUser } from "../../core/host-user.js";
import type { RuntimePaths } from "../../core/paths.js";
import { readStatusFile, writeStatusFile } from "../../core/status-file.js";
import type { ProxyCounters } from "./sandbox-proxy.js";

const count = z.number().int().min(0);

/** The proxy's health, for `forage-ctl proxy --status` and the daemon's `proxy` operation. */
const proxyStatusSchema = z.object({
  pid: z.number().int().positive(),
  port: z.number().int().min(1).max(65535),
  startedAt: z.string(),
  sandboxes: z.array(z.object({ name: z.string(), address: z.string(), agents: z.array(z.string()) })),
  counters: z.object({
    requests: count,
    forwarded: count,
    active: count,
    refused: z.record(z.string(), count),
    upstreamErrors: count,
    requestBytes: count,
    responseBytes: count,
    connectionsRefused: count,
  }) satisfies z.ZodType<ProxyCounters>,
  /** Secret names whose keys are loaded (never the keys), and how often all were re-read. */
  keys: z.object({ loaded: z.array(z.string()), reloads: count }),
  auditLog: z.string(),
});
export type ProxyStatus = z.infer<typeof proxyStatusSchema>;

/**
 * Writes the status file atomically, 0640 for root and the group that may use forage-ctl (it
 * names sandboxes and secrets, like the state directory); null removes it.
 */
export async function writeProxyStatus(paths: RuntimePaths, status: ProxyStatus | null, group: number): Promise<void> {
  const path = paths.proxyStatusFile;
  if (status === null) return rm(path, { force: true });
  await mkdir(dirname(path), { recursive: true, mode: 0o755 });
  await writeStatusFile(path, status, 0o640, group);
}

/** The group that may read the status: "forage" where the NixOS module made it, else the configured user's. */
export async function statusFileGroup(settings: Model): Promise<number> {
  return (await lookupGroupId("forage")) ?? (await lookupHostUser(settings.host.user))?.gid ?? 0;
}

/** The status of the proxy running on this host, or undefined when none runs (its process is gone). */
export async function readProxyStatus(paths: RuntimePaths): Promise<ProxyStatus | undefined> {
  const status = await readStatusFile(paths.proxyStatusFile, proxyStatusSchema);
  return status !== undefined && isAlive(status.pid) ? status : undefined;
}

/** Whether the running proxy listens for sandbox `name` now, and where (its status file says). */
export async function servedByProxy(
  paths: RuntimePaths,
  name: string,
): Promise<{ served: boolean; address: string | null }> {
  const entry = (await readProxyStatus(paths))?.sandboxes.find((sandbox) => sandbox.name === name);
  return { served: entry !== undefined, address: entry?.address ?? null };
}

import { recordEvent } from "../core/audit-log.js";
import { findTemplate, type RuntimeContext } from "../core/context.js";
import { assertSandboxName } from "../core/names.js";
import { copySecrets } from "../provision/secrets.js";
import { writeMetadata } from "../state/metadata-store.js";
import type { SandboxMetadata } from "../state/metadata.js";
import { requireSandbox } from "../state/require-sandbox.js";
import { withUpstreamAgent } from "../gates/ssh-agent/upstream-socket.js";
import { withSandboxLock } from "../state/sandbox-lock.js";
import { checkpointOf } from "./checkpoint-state.js";
import { isRunning, startReady, stopSandbox } from "./start-stop.js";
import { refuseServerSandboxAlone, serverSandboxesOf } from "./mcp-server-sandboxes.js";
import { copyServerSecrets } from "../provision/mcp-server-secrets.js";

/**
 * `forage-ctl start`, `stop` and `reset`: each one the sandbox's only lifecycle change while it
 * runs (see withSandboxLock), reading the metadata once it holds the lock. Its stdio MCP
 * servers' sandboxes follow it (each under its own lock, after it); alone they are refused.
 */
export function startExisting(context: RuntimeContext, name: string, sshAuthSock?: string): Promise<void> {
  return locked(context, name, async () => {
    const found = await requireSandbox(context, name);
    await refuseServerSandboxAlone(context, found, "start");
    await startOne(context, found, sshAuthSock);
    await forEachServer(context, found, (server) => startOne(context, server, undefined));
  });
}

export function stopExisting(context: RuntimeContext, name: string, graceSeconds: number): Promise<void> {
  return locked(context, name, async () => {
    const found = await requireSandbox(context, name);
    await refuseServerSandboxAlone(context, found, "stop");
    await stopSandbox(context, found, graceSeconds);
    await forEachServer(context, found, async (server) => void (await stopSandbox(context, server, graceSeconds)));
  });
}

/** A fresh root from the same definition: stopped, secrets copied again, started; the workspace stays. */
export function resetSandbox(context: RuntimeContext, name: string, sshAuthSock?: string): Promise<void> {
  return locked(context, name, async () => {
    const found = await requireSandbox(context, name);
    await refuseServerSandboxAlone(context, found, "reset");
    await resetOne(context, await withCallersAgent(context, found, sshAuthSock), {});
    const servers = findTemplate(context, found.template).mcp.servers;
    await forEachServer(context, found, (server) =>
      resetOne(context, server, servers.find((each) => each.name === server.mcpServerOf?.server)?.env ?? {}),
    );
  });
}

async function startOne(
  context: RuntimeContext,
  found: SandboxMetadata,
  sshAuthSock: string | undefined,
): Promise<void> {
  if (await isRunning(context, found)) return;
  if ((await checkpointOf(context, found)) !== undefined)
    context.warn(
      `sandbox ${found.name} was checkpointed: start runs it afresh and discards its checkpoint (forage-ctl restore ${found.name} would have run it again where it was)`,
    );
  const metadata = await withCallersAgent(context, found, sshAuthSock);
  await startReady(context, metadata, findTemplate(context, metadata.template));
}

/** One sandbox reset; `serverEnv`: a stdio server's secrets, copied again beside the template's. */
async function resetOne(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  serverEnv: Readonly<Record<string, string>>,
): Promise<void> {
  const stopped = await stopSandbox(context, metadata);
  const template = findTemplate(context, metadata.template);
  const secrets = await copySecrets(context.paths, stopped, template, context.settings.host);
  if (metadata.mcpServerOf !== undefined)
    secrets.push(await copyServerSecrets(context.paths, stopped, serverEnv, context.settings.host));
  await startReady(context, { ...stopped, secrets }, template);
  await recordEvent(context.paths, metadata.name, "reset");
}

/** `work` on each of the sandbox's stdio servers' sandboxes, under its lock, with its metadata as it is then. */
async function forEachServer(
  context: RuntimeContext,
  agent: SandboxMetadata,
  work: (server: SandboxMetadata) => Promise<void>,
): Promise<void> {
  for (const { name } of await serverSandboxesOf(context, agent))
    await locked(context, name, async () => work(await requireSandbox(context, name)));
}

/**
 * The sandbox's SSH agent relaying to the user's own agent as this caller has it (SSH_AUTH_SOCK,
 * else the one recorded), checked before the sandbox starts and recorded for the daemon, which
 * serves the agent; the metadata as it was when no key is relayed or the socket is the same.
 */
async function withCallersAgent(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  sshAuthSock: string | undefined,
): Promise<SandboxMetadata> {
  const sshAgent = await withUpstreamAgent(metadata.sshAgent, sshAuthSock, metadata);
  // Written only when the socket changed (the check itself always runs).
  if (sshAgent?.upstreamSocket === metadata.sshAgent?.upstreamSocket) return metadata;
  const updated = { ...metadata, sshAgent };
  await writeMetadata(context.paths, updated);
  return updated;
}

function locked(context: RuntimeContext, name: string, work: () => Promise<void>): Promise<void> {
  assertSandboxName(name);
  return withSandboxLock(context, name, work);
}

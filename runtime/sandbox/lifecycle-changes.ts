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

/**
 * `forage-ctl start`, `stop` and `reset`: each one the sandbox's only lifecycle change while it
 * runs (see withSandboxLock), reading the metadata once it holds the lock.
 */
export function startExisting(context: RuntimeContext, name: string, sshAuthSock?: string): Promise<void> {
  return locked(context, name, async () => {
    const found = await requireSandbox(context, name);
    if (await isRunning(context, found)) return;
    if ((await checkpointOf(context, found)) !== undefined)
      context.warn(
        `sandbox ${name} was checkpointed: start runs it afresh and discards its checkpoint (forage-ctl restore ${name} would have run it again where it was)`,
      );
    const metadata = await withCallersAgent(context, found, sshAuthSock);
    await startReady(context, metadata, findTemplate(context, metadata.template));
  });
}

export function stopExisting(context: RuntimeContext, name: string, graceSeconds: number): Promise<void> {
  return locked(
    context,
    name,
    async () => void (await stopSandbox(context, await requireSandbox(context, name), graceSeconds)),
  );
}

/** A fresh root from the same definition: stopped, secrets copied again, started; the workspace stays. */
export function resetSandbox(context: RuntimeContext, name: string, sshAuthSock?: string): Promise<void> {
  return locked(context, name, async () => {
    const metadata = await withCallersAgent(context, await requireSandbox(context, name), sshAuthSock);
    const stopped = await stopSandbox(context, metadata);
    const template = findTemplate(context, metadata.template);
    const secrets = await copySecrets(context.paths, stopped, template, context.settings.host);
    await startReady(context, { ...stopped, secrets }, template);
    await recordEvent(context.paths, name, "reset");
  });
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

import { recordEvent } from "../core/audit-log.js";
import { findTemplate, type RuntimeContext } from "../core/context.js";
import { assertSandboxName } from "../core/names.js";
import { copySecrets } from "../provision/secrets.js";
import { requireSandbox } from "../state/require-sandbox.js";
import { withSandboxLock } from "../state/sandbox-lock.js";
import { isRunning, startReady, stopSandbox } from "./start-stop.js";

/**
 * `forage-ctl start`, `stop` and `reset`: each one the sandbox's only lifecycle change while it
 * runs (see withSandboxLock), reading the metadata once it holds the lock.
 */
export function startExisting(context: RuntimeContext, name: string): Promise<void> {
  return locked(context, name, async () => {
    const metadata = await requireSandbox(context, name);
    if (await isRunning(context, metadata)) return;
    await startReady(context, metadata, findTemplate(context, metadata.template));
  });
}

export function stopExisting(context: RuntimeContext, name: string, graceSeconds: number): Promise<void> {
  return locked(context, name, async () => void (await stopSandbox(context, await requireSandbox(context, name), graceSeconds)));
}

/** A fresh root from the same definition: stopped, secrets copied again, started; the workspace stays. */
export function resetSandbox(context: RuntimeContext, name: string): Promise<void> {
  return locked(context, name, async () => {
    const metadata = await requireSandbox(context, name);
    const stopped = await stopSandbox(context, metadata);
    const template = findTemplate(context, metadata.template);
    const secrets = await copySecrets(context.paths, stopped, template, context.settings.host);
    await startReady(context, { ...stopped, secrets }, template);
    await recordEvent(context.paths, name, "reset");
  });
}

function locked(context: RuntimeContext, name: string, work: () => Promise<void>): Promise<void> {
  assertSandboxName(name);
  return withSandboxLock(context, name, work);
}

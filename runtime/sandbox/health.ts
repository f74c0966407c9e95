import { isOurGuard } from "../gates/network/guard-process.js";
import { startNetworkGuard } from "../gates/network/sandbox-network.js";
import { backendOf } from "../backends/registry.js";
import { listMetadata, readMetadata, writeMetadata } from "../state/metadata-store.js";
import { withSandboxLock } from "../state/sandbox-lock.js";
import type { SandboxMetadata } from "../state/metadata.js";
import { recordEvent } from "../core/audit-log.js";
import { findTemplate, type RuntimeContext } from "../core/context.js";
import { hasSession, startSession } from "./session.js";
import { isRunning, startReady, stopSandbox } from "./start-stop.js";

/**
 * Checks one sandbox that should be running (it was started and not stopped). Returns a report
 * line when it is unhealthy, restarting it first with `autoRestart`; undefined when healthy.
 */
export async function checkHealth(
  context: RuntimeContext,
  listed: SandboxMetadata,
  autoRestart: boolean,
): Promise<string | undefined> {
  // One being made or stopped is not waited for (an up holds its lock for as long as it takes).
  // A warm pool's member has no session to lose: the daemon's pool keeper replaces a dead one.
  if (listed.phase !== "ready" || listed.pid === null || listed.pool !== undefined) return undefined;
  // Under the sandbox's lock, from its metadata as it is then: a `down` or `stop` that ran
  // meanwhile is not mistaken for a crash (and a removed sandbox is not started again).
  return withSandboxLock(context, listed.name, async () => {
    const sandbox = await readMetadata(context.paths, listed.name);
    return sandbox === undefined ? undefined : checkSandbox(context, sandbox, autoRestart);
  });
}

async function checkSandbox(
  context: RuntimeContext,
  sandbox: SandboxMetadata,
  autoRestart: boolean,
): Promise<string | undefined> {
  if (sandbox.phase !== "ready" || sandbox.pid === null || sandbox.pool !== undefined) return undefined;
  const running = await isRunning(context, sandbox);
  const problem = !running
    ? "container is gone"
    : (await hasSession(context, sandbox))
      ? undefined
      : "agent session is gone";
  if (problem === undefined) return checkGuard(context, sandbox, autoRestart);
  await recordEvent(context.paths, sandbox.name, "error", { detail: `health: ${problem}` });
  if (!autoRestart) return `${sandbox.name}: unhealthy (${problem})`;
  const template = findTemplate(context, sandbox.template);
  // A lost session is opened again; a lost container is started again from scratch.
  if (running) await startSession(context, sandbox, template);
  else await startReady(context, await stopSandbox(context, sandbox, 1), template);
  return `${sandbox.name}: unhealthy (${problem}), restarted`;
}

/** Checks every sandbox once; returns the report lines of the unhealthy ones. */
export async function checkAll(context: RuntimeContext, autoRestart: boolean): Promise<string[]> {
  const reports: string[] = [];
  for (const sandbox of await listMetadata(context.paths)) {
    const report = await checkHealth(context, sandbox, autoRestart).catch(
      (error: unknown) =>
        `${sandbox.name}: health check failed: ${error instanceof Error ? error.message : String(error)}`,
    );
    if (report !== undefined) reports.push(report);
  }
  return reports;
}

/** A running sandbox whose network guard died resolves no name: restart the guard (autoRestart). */
async function checkGuard(
  context: RuntimeContext,
  sandbox: SandboxMetadata,
  autoRestart: boolean,
): Promise<string | undefined> {
  if (await isOurGuard(context.paths, sandbox.guard, sandbox.name)) return undefined;
  const problem = "network guard is gone: no name resolves";
  await recordEvent(context.paths, sandbox.name, "error", { detail: `health: ${problem}` });
  if (!autoRestart) return `${sandbox.name}: unhealthy (${problem})`;
  const namespace = await backendOf(sandbox.runtime).networkNamespace(context, sandbox);
  await writeMetadata(context.paths, await startNetworkGuard(context, sandbox, namespace));
  return `${sandbox.name}: unhealthy (${problem}), guard restarted`;
}

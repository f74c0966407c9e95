import type { TemplateModel } from "../../generator/model/model.js";
import { backendOf } from "../backends/registry.js";
import { recordEvent } from "../core/audit-log.js";
import { seedHome } from "./seed-home.js";
import { startContextFiles } from "../context/context-files.js";
import type { RuntimeContext } from "../core/context.js";
import { timed } from "../core/phase-clock.js";
import { writeMetadata } from "../state/metadata-store.js";
import { stoppedMetadata, type SandboxMetadata } from "../state/metadata.js";
import { syncInSandboxTable } from "../gates/network/sandbox-network.js";
import { runInit, startSession } from "./session.js";
import { startSshd } from "./sshd.js";
import { slotOwner } from "../state/slots.js";
import { hostFoldersDir, joinFolders, leaveFolders } from "../workspaces/folder-users.js";

/**
 * Starts a sandbox's container on its runtime (network fenced first, then a fresh ephemeral
 * root) and records it; a root without its own init gets forage-ctl's sshd when the template
 * asks for SSH. Nothing half-started stays when a step fails.
 */
export async function startSandbox(
  context: RuntimeContext,
  given: SandboxMetadata,
  template: TemplateModel,
): Promise<SandboxMetadata> {
  const backend = backendOf(given.runtime);
  await useFolders(context, given);
  const started = await backend.start(context, given, template).catch(async (error: unknown) => {
    await leaveFolders(hostFoldersDir, slotOwner(context, given.name), foldersOf(given), given).catch(() => undefined);
    throw error;
  });
  try {
    await timed(context.clock, "start: metadata, sshd, event", async () => {
      await writeMetadata(context.paths, started);
      if (template.ssh && !backend.capabilities.ownInit) await startSshd(context, started);
      await recordEvent(context.paths, started.name, "start");
    });
    return started;
  } catch (error) {
    await stopSandbox(context, started, 1).catch(() => undefined);
    throw error;
  }
}

/**
 * Starts a sandbox and makes it ready for its agent: the container, then the agent's session,
 * the in-sandbox table of the policy in force, and the init commands (failures there warn).
 * Used by up, start, reset and the health monitor alike; `start` is startSandbox, or for an up
 * that claimed a warm pool's member, startClaimed (runtime/sandbox/pool-*.ts).
 */
export async function startReady(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  template: TemplateModel,
  progress?: (step: string) => void,
  start: typeof startSandbox = startSandbox,
): Promise<SandboxMetadata> {
  const { clock } = context;
  // Rendered at every start (the network policy it describes may have changed), beside the start.
  const agentContext = await startContextFiles(context, metadata, template);
  progress?.(start === startSandbox ? "starting the container" : "taking a started sandbox from the pool");
  const running = await timed(clock, "start", () => start(context, metadata, template));
  // Before the session: its agents must find their context and login files in place when they start.
  await timed(clock, "agent context", () => agentContext.written);
  await timed(clock, "home seed", () => seedHome(context, running));
  progress?.("opening the agent session");
  // The session and the in-sandbox table do not depend on each other (the host-side table holds already).
  const namespace = await backendOf(running.runtime).networkNamespace(context, running);
  await Promise.all([
    timed(clock, "agent session", () => startSession(context, running, template)),
    timed(clock, "in-sandbox table", () => syncInSandboxTable(context, running, namespace)),
  ]);
  progress?.("running init commands");
  await timed(clock, "init commands", () => runInit(context, running, template));
  return running;
}

/**
 * Joins the sandbox to its workspace folders' users (see folder-users.ts) and says when another
 * sandbox uses one of them already: both then write the same files, and what one's agent leaves
 * there (a nested repository, a build script) is the other's input.
 */
export async function useFolders(context: RuntimeContext, metadata: SandboxMetadata): Promise<void> {
  const others = await joinFolders(hostFoldersDir, slotOwner(context, metadata.name), foldersOf(metadata));
  const own = slotOwner(context, metadata.name).stateDir;
  for (const [folder, users] of others) {
    const names = users
      .map((user) =>
        user.stateDir === own ? `"${user.sandbox}"` : `"${user.sandbox}" (state directory ${user.stateDir})`,
      )
      .join(", ");
    context.warn(
      `${folder} is in use by sandbox ${names} too: both agents write the same files; give each sandbox its own folder (-r makes it a worktree of its own) unless you mean to share it`,
    );
  }
}

/** The host folders a sandbox binds from (its workspace and the template's mounts). */
function foldersOf(metadata: SandboxMetadata): string[] {
  return [metadata.workspace, ...metadata.mounts].map((mount) => mount.hostPath);
}

/** Stops the container (graceful, then forceful) and removes its root and network. Idempotent. */
export async function stopSandbox(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  graceSeconds = 10,
): Promise<SandboxMetadata> {
  await backendOf(metadata.runtime).stop(context, metadata, graceSeconds);
  // After the container is gone: the last sandbox out removes the stand-ins it no longer needs.
  await leaveFolders(hostFoldersDir, slotOwner(context, metadata.name), foldersOf(metadata), metadata);
  const stopped = stoppedMetadata(metadata);
  await writeMetadata(context.paths, stopped);
  await recordEvent(context.paths, metadata.name, "stop");
  return stopped;
}

/** True when the sandbox's container is running now. */
export function isRunning(context: RuntimeContext, metadata: SandboxMetadata): Promise<boolean> {
  return backendOf(metadata.runtime).isRunning(context, metadata);
}

import { access, constants } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { TemplateModel } from "../../generator/model/model.js";
import type { SandboxMetadata } from "../state/metadata.js";
import type { RuntimeContext } from "../core/context.js";
import { execInRunning } from "./exec.js";
import { recordEvent } from "../core/audit-log.js";
import { backendOf } from "../backends/registry.js";

/** The tmux session every sandbox has: one window per agent, or the template's tmuxWindows. */
export const sessionName = "forage";

/**
 * Opens the agent's tmux session inside the sandbox. Windows stay open after their command exits
 * (remain-on-exit) so the user can read what happened. A host without tmux gets a warning: exec
 * and shell still work.
 */
export async function startSession(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  template: TemplateModel,
): Promise<void> {
  if (backendOf(metadata.runtime).capabilities.ownInit) return awaitSystemSession(context, metadata);
  const workspace = context.settings.host.workspacePath;
  const windows = template.tmuxWindows.length > 0 ? template.tmuxWindows : [{ name: "shell", command: "bash -l" }];
  const [first, ...rest] = windows;
  if (first === undefined) return;
  // One tmux run: its commands separated by ";" arguments.
  const steps = [
    ["new-session", "-d", "-s", sessionName, "-n", first.name, "-c", workspace, tmuxArgument(first.command)],
    ["set-option", "-wg", "remain-on-exit", "on"],
    ...rest.map((w) => ["new-window", "-t", sessionName, "-n", w.name, "-c", workspace, tmuxArgument(w.command)]),
  ];
  const result = await execInRunning(context, metadata, [
    "tmux",
    ...steps.flatMap((step, i) => (i === 0 ? step : [";", ...step])),
  ]);
  if (result.exitCode !== 0) {
    const message =
      result.exitCode === 127
        ? "tmux is not installed on the host: the sandbox has no agent session (exec and shell still work)"
        : `tmux failed (exit ${result.exitCode}): ${result.stderr.trim()}`;
    context.warn(message);
    await recordEvent(context.paths, metadata.name, "warning", { detail: message });
  }
}

/** A window's command as one tmux argument: a trailing ";" would end tmux's command there, so it is escaped. */
function tmuxArgument(command: string): string {
  return command.endsWith(";") ? `${command.slice(0, -1)}\\;` : command;
}

/** How long a booting NixOS system gets to open the session (the reference waits as long for SSH). */
const systemSessionTimeoutMs = 30_000;

/** A NixOS system opens the session itself (forage-session.service): wait for it to appear. */
async function awaitSystemSession(context: RuntimeContext, metadata: SandboxMetadata): Promise<void> {
  const deadline = Date.now() + systemSessionTimeoutMs;
  while (Date.now() < deadline) {
    if (await hasSession(context, metadata)) return;
    await sleep(20);
  }
  const message = `the system did not open the agent session within ${systemSessionTimeoutMs / 1000} s (see forage-ctl exec ${metadata.name} -- systemctl status forage-session)`;
  context.warn(message);
  await recordEvent(context.paths, metadata.name, "warning", { detail: message });
}

/** True when the sandbox's tmux session exists. */
export async function hasSession(context: RuntimeContext, metadata: SandboxMetadata): Promise<boolean> {
  const result = await execInRunning(context, metadata, ["tmux", "has-session", "-t", sessionName]).catch(
    () => undefined,
  );
  return result?.exitCode === 0;
}

/**
 * Runs the template's initCommands, then /workspace/.forage/init if it is executable, as the
 * agent in the workspace. Failures are warnings: the sandbox is still usable.
 */
export async function runInit(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  template: TemplateModel,
): Promise<void> {
  const workspace = context.settings.host.workspacePath;
  // The repository's own init script, when it has one (checked on the host side of the mount).
  const repoInit = await access(join(metadata.workspace.hostPath, ".forage/init"), constants.X_OK).then(
    () => true,
    () => false,
  );
  const steps = [
    ...template.initCommands.map((command) => ({ label: command, argv: ["bash", "-lc", command] })),
    ...(repoInit ? [{ label: ".forage/init", argv: ["./.forage/init"] }] : []),
  ];
  for (const step of steps) {
    const result = await execInRunning(context, metadata, step.argv, { cwd: workspace });
    if (result.exitCode !== 0) {
      const message = `init step "${step.label}" failed with exit ${result.exitCode}: ${result.stderr.trim().split("\n").slice(-3).join(" / ")}`;
      context.warn(message);
      await recordEvent(context.paths, metadata.name, "warning", { detail: message });
    }
  }
}

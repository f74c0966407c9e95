import type { Command } from "commander";
import type { Operations } from "../runtime/api/operations.js";
import { remoteOperations } from "../runtime/daemon/client.js";
import { noteIfDaemonServesOther } from "./daemon-settings.js";
import { loadRuntime, warn } from "./runtime-context.js";

const note = (message: string): void => void process.stderr.write(`forage-ctl: note: ${message}\n`);

export interface OperationsOptions {
  /**
   * As root, make sure a daemon serves the user from now on (`up`: first use on a host), after
   * the settings loaded: a config with errors stops here with its own errors, before any daemon.
   */
  startDaemon?: { progress?: ((step: string) => void) | undefined };
}

/**
 * Where sandbox commands run: in this process when forage-ctl runs as root (it can do the
 * privileged work itself, from the settings settingsFile chooses), otherwise through the
 * daemon's socket (no sudo rules needed; the daemon's own settings apply).
 */
export async function operationsFor(configOption: string | undefined, options: OperationsOptions = {}): Promise<Operations> {
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (!isRoot) {
    await noteIfDaemonServesOther(configOption, note);
    return remoteOperations(warn);
  }
  const { context, file } = await loadRuntime(configOption);
  if (options.startDaemon !== undefined) {
    const { ensureDaemon } = await import("./ensure-daemon.js");
    await ensureDaemon(file, { progress: options.startDaemon.progress, warn });
  }
  const { localOperations } = await import("../runtime/api/local-operations.js");
  return localOperations(context);
}

/** operationsFor with the program's global --config: what every sandbox command starts from. */
export function operationsOf(program: Command, options: OperationsOptions = {}): Promise<Operations> {
  return operationsFor(program.opts<{ config?: string }>().config, options);
}

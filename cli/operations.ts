import type { Command } from "commander";
import type { Operations } from "../runtime/api/operations.js";
import { buildId } from "../runtime/core/build-id.js";
import { daemonHello, remoteOperations } from "../runtime/daemon/client.js";
import { rootSocketPath } from "../runtime/daemon/protocol.js";
import { pathOverridesOf } from "../runtime/core/paths.js";
import { isRootsSocket } from "../runtime/core/private-socket.js";
import { clientSocketPath } from "../runtime/daemon/gateway-socket.js";
import { settingsFile } from "../runtime/settings/settings-file.js";
import { noteIfDaemonServesOther, sameFile } from "./daemon-settings.js";
import { warn } from "./warn.js";

const note = (message: string): void => void process.stderr.write(`forage-ctl: note: ${message}\n`);

export interface OperationsOptions {
  /**
   * As root, make sure a daemon serves the user from now on (`up`: first use on a host), after
   * the settings loaded: a config with errors stops here with its own errors, before any daemon.
   */
  startDaemon?: { progress?: ((step: string) => void) | undefined };
  /**
   * As root, hand the command to a running daemon that serves the same settings file with the
   * same build and paths, on root's own socket: there it runs as root's command would here
   * (settings read afresh, any workspace, a root shell), with everything loaded already, so it
   * starts in tens of milliseconds instead of loading the config first. Otherwise root does the
   * work itself.
   */
  preferDaemon?: boolean;
}

/**
 * Where sandbox commands run: in this process when forage-ctl runs as root (it can do the
 * privileged work itself, from the settings settingsFile chooses), otherwise through the
 * daemon's socket (no sudo rules needed; the daemon's own settings apply). Only what the chosen
 * way needs is loaded: a command through the daemon loads no config toolchain.
 */
export async function operationsFor(
  configOption: string | undefined,
  options: OperationsOptions = {},
): Promise<Operations> {
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (!isRoot) {
    // The user's socket, or the gateway's for the SSH gateway's account.
    const path = await clientSocketPath();
    await noteIfDaemonServesOther(configOption, note, path);
    return remoteOperations(warn, path);
  }
  if (options.preferDaemon === true && (await daemonServesTheSame(configOption)))
    return remoteOperations(warn, rootSocketPath(), printLine);
  const { loadRuntime } = await import("./runtime-context.js");
  const { context, file } = await loadRuntime(configOption);
  if (options.startDaemon !== undefined) {
    const { ensureDaemon } = await import("./ensure-daemon.js");
    await ensureDaemon(file, { progress: options.startDaemon.progress, warn });
  }
  const [{ localOperations }, { checkedOperations }] = await Promise.all([
    import("../runtime/api/local-operations.js"),
    import("../runtime/api/checked-operations.js"),
  ]);
  // Requests checked as the daemon checks them: the same refusals whichever way a command runs.
  return checkedOperations(localOperations(context));
}

/**
 * True when root's socket is root's (in a directory only root writes: else whoever put it there
 * would get root's commands), a daemon answers on it, runs this very build, finds state where this
 * command would (the same path overrides), and serves the settings this command would load.
 */
async function daemonServesTheSame(configOption: string | undefined): Promise<boolean> {
  if (!(await isRootsSocket(rootSocketPath()))) return false;
  const file = await settingsFile(configOption);
  const hello = await daemonHello(rootSocketPath()).catch(() => null);
  return (
    hello?.version === buildId() &&
    JSON.stringify(hello.paths) === JSON.stringify(pathOverridesOf()) &&
    (await sameFile(hello.settings, file.path))
  );
}

const printLine = (line: string): void => void process.stderr.write(`${line}\n`);

/** operationsFor with the program's global --config: what every sandbox command starts from. */
export function operationsOf(program: Command, options: OperationsOptions = {}): Promise<Operations> {
  return operationsFor(program.opts<{ config?: string }>().config, options);
}

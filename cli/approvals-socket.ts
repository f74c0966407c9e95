import { DaemonUnavailableError, daemonHello } from "../runtime/daemon/client.js";
import { clientSocketPath } from "../runtime/daemon/gateway-socket.js";
import { rootSocketPath } from "../runtime/daemon/protocol.js";
import { isRootsSocket } from "../runtime/core/private-socket.js";
import { SandboxError } from "../runtime/core/errors.js";
import { settingsFile } from "../runtime/settings/settings-file.js";
import { warn } from "./warn.js";

/**
 * The daemon socket the approvals commands talk to: the queue lives in the daemon alone, so they
 * never run in-process. Root uses root's own socket (after checking it is root's: an answer there
 * is root's), starting the daemon as `up` does when none answers; anyone else the user's socket.
 */
export async function approvalsSocket(configOption: string | undefined): Promise<string> {
  if (process.getuid?.() !== 0) return clientSocketPath();
  const root = rootSocketPath();
  if ((await isRootsSocket(root)) && (await answers(root))) return root;
  const { ensureDaemon } = await import("./ensure-daemon.js");
  await ensureDaemon(await settingsFile(configOption), { warn });
  if (!(await isRootsSocket(root)))
    throw new SandboxError(
      `the daemon's root socket ${root} is missing or not root's (in a directory only root writes): start the daemon with forage-ctl daemon`,
      "general",
    );
  return root;
}

async function answers(path: string): Promise<boolean> {
  try {
    await daemonHello(path);
    return true;
  } catch (error) {
    if (error instanceof DaemonUnavailableError) return false;
    throw error;
  }
}

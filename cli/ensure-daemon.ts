import { spawn } from "node:child_process";
import { mkdir, open } from "node:fs/promises";
import { connect } from "node:net";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { socketPath } from "../runtime/daemon/protocol.js";

function reachable(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(path);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * Starts the daemon in the background when none answers (forage-ctl run as root, first use on a
 * host without a service manager running it). It outlives this process; its log is beside the
 * socket. Returns true when it had to start one.
 */
export async function ensureDaemon(configOption: string | undefined): Promise<boolean> {
  const path = socketPath();
  if (await reachable(path)) return false;
  await mkdir(dirname(path), { recursive: true, mode: 0o755 });
  const log = await open(join(dirname(path), "daemon.log"), "a", 0o640);
  try {
    const main = fileURLToPath(new URL("./main.js", import.meta.url));
    const args = [main, ...(configOption === undefined ? [] : ["--config", configOption]), "daemon"];
    const child = spawn(process.execPath, args, { detached: true, stdio: ["ignore", log.fd, log.fd] });
    child.unref();
  } finally {
    await log.close();
  }
  for (let i = 0; i < 100; i++) {
    if (await reachable(path)) return true;
    await sleep(50);
  }
  throw new Error(`the daemon did not come up within 5 s; see ${join(dirname(path), "daemon.log")}`);
}

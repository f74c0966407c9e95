/**
 * Entry point of the network guard host (gates/network/guard-host.ts), started detached by
 * gates/network/guard-process.ts
 * with its socket's path on argv when a sandbox needs a guard and none answers. It holds
 * `<socket>.lock` for its whole life, so only one runs per run directory: a second one, started
 * by a racing forage-ctl, finds it held and exits, and its starter talks to the first. It logs to
 * stderr (guard-host.log beside the socket). It lives beside the daemon because it hands the
 * guards the daemon's approvals queue (ask mode) through the daemon's client.
 */
import { dirname } from "node:path";
import { rootSocketIn } from "../core/daemon-sockets.js";
import { holdLock } from "../state/lock.js";
import { defaultIdleExitMs, runGuardHost } from "../gates/network/guard-host.js";
import { askThroughDaemon } from "./approval-client.js";

const socketPath = process.argv[2];
if (socketPath === undefined || !socketPath.startsWith("/")) {
  process.stderr.write("usage: guard-host-main.js SOCKET (started by forage-ctl, not by hand)\n");
  process.exit(64);
}
const log = (line: string): void =>
  void process.stderr.write(`${new Date().toISOString()} forage guard host: ${line}\n`);
// A few seconds: a host killed a moment ago lets its lock go as its helper notices.
const release = await holdLock(`${socketPath}.lock`, 5);
if (release === undefined) {
  log("another guard host holds the lock: leaving it the sandboxes");
  process.exit(0);
}
try {
  // FORAGE_GUARD_IDLE_SECONDS: how long it stays without a sandbox (tests make it short).
  const idle = Number(process.env.FORAGE_GUARD_IDLE_SECONDS);
  // Names asked about in network ask mode go to the queue of this run directory's daemon.
  const ask = askThroughDaemon({ log, socket: rootSocketIn(dirname(socketPath)) });
  await runGuardHost(socketPath, log, Number.isFinite(idle) && idle >= 0 ? idle * 1000 : defaultIdleExitMs, ask);
  release();
  process.exit(0);
} catch (error) {
  log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
}

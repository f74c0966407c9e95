import { existsSync } from "node:fs";
import { lstat, mkdir, rm, stat, symlink } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { callDaemon, daemonHello } from "../daemon/client.js";
import { runCommand } from "../core/run-command.js";
import { SandboxError } from "../core/errors.js";
import { writeFileAtomic } from "../core/write-file-atomic.js";
import { renderUnit, shippedUnit, type UnitFill } from "./systemd-unit.js";

export const unitName = "forage.service";

const systemUnitDirectory = "/etc/systemd/system";

/** Where units go: /etc/systemd/system, or FORAGE_SYSTEMD_UNIT_DIR (tests, a staged root). */
export function unitDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.FORAGE_SYSTEMD_UNIT_DIR;
  return dir !== undefined && dir !== "" ? dir : systemUnitDirectory;
}

/**
 * Whether this machine's systemd runs the units in `dir` (sd_booted(3): it makes
 * /run/systemd/system at boot). A directory of another root's (FORAGE_SYSTEMD_UNIT_DIR) never
 * is: its units are written and enabled there, and this machine's service is left alone.
 */
export function systemdRunning(dir = unitDirectory()): boolean {
  return dir === systemUnitDirectory && existsSync("/run/systemd/system");
}

/** How long the service's daemon gets to answer on its socket after a restart. */
const answerWithinMs = 15_000;

/** What `service install` did, as `--json` prints it. */
export interface InstalledService {
  unit: string;
  /** The multi-user.target.wants link that starts it at boot (what `systemctl enable` makes). */
  enabledBy: string;
  settings: string;
  /** A unit was there before (an earlier install): it is replaced. */
  replaced: boolean;
  /** "running": systemd runs this machine; the service was (re)started and is `active`. */
  systemd: "running" | "not running";
  active: boolean | null;
}

/**
 * Installs the shipped unit with this machine's paths, enabled for boot. The unit is written
 * whole (writeFileAtomic), so a failure leaves the old unit or none. Where systemd runs, it is
 * (re)started; a daemon started by hand (`sudo forage-ctl up`) is asked to stop first, or it
 * would hold the run directory and the service's daemon would step aside. Active means the
 * service's own daemon answers on its socket, not that systemd forked it.
 */
export async function installService(
  fill: UnitFill,
  progress: (step: string) => void,
  dir = unitDirectory(),
): Promise<InstalledService> {
  const unit = join(dir, unitName);
  const replaced = existsSync(unit);
  const text = renderUnit(await shippedUnit(), fill);
  await mkdir(dir, { recursive: true, mode: 0o755 });
  await writeFileAtomic(unit, text, 0o644);
  const enabledBy = await enable(dir);
  progress(`${replaced ? "replaced" : "wrote"} ${unit}, enabled for boot (${enabledBy})`);
  if (!systemdRunning(dir))
    return { unit, enabledBy, settings: fill.settings, replaced, systemd: "not running", active: null };
  await systemctl("daemon-reload");
  await stopUnmanagedDaemon(progress);
  progress("systemctl restart forage");
  await systemctl("restart", unitName);
  return { unit, enabledBy, settings: fill.settings, replaced, systemd: "running", active: await serviceAnswers() };
}

/** What `service uninstall` removed. */
export interface RemovedService {
  removed: string[];
  systemd: "running" | "not running";
}

/** Stops and disables the service (sandboxes keep running: KillMode=process) and removes its files. */
export async function uninstallService(
  progress: (step: string) => void,
  dir = unitDirectory(),
): Promise<RemovedService> {
  const unit = join(dir, unitName);
  const running = systemdRunning(dir);
  if (running && existsSync(unit)) {
    progress("systemctl stop forage (sandboxes keep running)");
    await systemctl("stop", unitName);
  }
  const removed: string[] = [];
  for (const path of [wantsLink(dir), unit]) {
    if ((await lstat(path).catch(() => undefined)) === undefined) continue;
    await rm(path);
    removed.push(path);
  }
  if (running && removed.length > 0) await systemctl("daemon-reload");
  return { removed, systemd: running ? "running" : "not running" };
}

function wantsLink(dir: string): string {
  return join(dir, "multi-user.target.wants", unitName);
}

/**
 * The link `systemctl enable` makes for WantedBy=multi-user.target, made here so it works
 * without systemd running too; relative, so it holds in a staged root once that root boots.
 */
async function enable(dir: string): Promise<string> {
  const link = wantsLink(dir);
  await mkdir(join(dir, "multi-user.target.wants"), { recursive: true, mode: 0o755 });
  await rm(link, { force: true });
  await symlink(`../${unitName}`, link);
  return link;
}

/** Whether the daemon systemd started (the unit's MainPID) answers on its socket within answerWithinMs. */
async function serviceAnswers(): Promise<boolean> {
  for (let waited = 0; waited < answerWithinMs; waited += 250) {
    const shown = await runCommand("systemctl", ["show", "--property=MainPID", "--value", unitName], { reject: false });
    const hello = await daemonHello().catch(() => null);
    if (hello !== null && String(hello.pid) === shown.stdout.trim()) return true;
    await sleep(250);
  }
  return false;
}

async function systemctl(...args: string[]): Promise<void> {
  await runCommand("systemctl", args, { timeoutMs: 60_000 });
}

/** A daemon answering on the socket that systemd did not start (its pid is not the unit's MainPID) is asked to exit. */
async function stopUnmanagedDaemon(progress: (step: string) => void): Promise<void> {
  const hello = await daemonHello().catch(() => null);
  if (hello === null) return;
  const mainPid = (
    await runCommand("systemctl", ["show", "--property=MainPID", "--value", unitName], { reject: false })
  ).stdout.trim();
  if (String(hello.pid) === mainPid) return;
  progress(`asking the daemon started by hand (pid ${hello.pid}) to exit; sandboxes keep running`);
  await callDaemon("shutdown", {});
  // Its lock goes with its process: wait for that, or the service's daemon would step aside.
  for (let waited = 0; (await stat(`/proc/${hello.pid}`).catch(() => undefined)) !== undefined; waited += 100) {
    if (waited >= 10_000) {
      throw new SandboxError(
        `the daemon started by hand (pid ${hello.pid}) did not exit within 10 s: stop it (sudo kill ${hello.pid}; sandboxes keep running), then install again`,
        "general",
      );
    }
    await sleep(100);
  }
}

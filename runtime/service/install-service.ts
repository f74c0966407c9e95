import { existsSync } from "node:fs";
import { lstat, mkdir, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { callDaemon, daemonHello } from "../daemon/client.js";
import { runCommand } from "../core/run-command.js";
import { renderUnit, shippedUnit, type UnitFill } from "./systemd-unit.js";

export const unitName = "forage.service";

/** Where units go: /etc/systemd/system, or FORAGE_SYSTEMD_UNIT_DIR (tests, a staged root). */
export function unitDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.FORAGE_SYSTEMD_UNIT_DIR;
  return dir !== undefined && dir !== "" ? dir : "/etc/systemd/system";
}

/** Whether systemd runs this machine (sd_booted(3): it makes /run/systemd/system at boot). */
export function systemdRunning(): boolean {
  return existsSync("/run/systemd/system");
}

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
 * whole (a file beside it, renamed over it), so a failure leaves the old unit or none. Where
 * systemd runs, it is (re)started; a daemon started by hand (`sudo forage-ctl up`) is asked to
 * stop first, or it would hold the run directory and the service's daemon would step aside.
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
  const staged = `${unit}.forage-new`;
  await writeFile(staged, text, { mode: 0o644 });
  await rename(staged, unit);
  const enabledBy = await enable(dir, unit);
  progress(`${replaced ? "replaced" : "wrote"} ${unit}, enabled for boot (${enabledBy})`);
  if (!systemdRunning())
    return { unit, enabledBy, settings: fill.settings, replaced, systemd: "not running", active: null };
  await systemctl("daemon-reload");
  await stopUnmanagedDaemon(progress);
  progress("systemctl restart forage");
  await systemctl("restart", unitName);
  const active = (await runCommand("systemctl", ["is-active", "--quiet", unitName], { reject: false })).exitCode === 0;
  return { unit, enabledBy, settings: fill.settings, replaced, systemd: "running", active };
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
  const running = systemdRunning();
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

/** The link `systemctl enable` makes for WantedBy=multi-user.target, made here so it works without systemd running too. */
async function enable(dir: string, unit: string): Promise<string> {
  const link = wantsLink(dir);
  await mkdir(join(dir, "multi-user.target.wants"), { recursive: true, mode: 0o755 });
  await rm(link, { force: true });
  await symlink(unit, link);
  return link;
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
  for (
    let waited = 0;
    waited < 10_000 && (await stat(`/proc/${hello.pid}`).catch(() => undefined)) !== undefined;
    waited += 100
  )
    await sleep(100);
}

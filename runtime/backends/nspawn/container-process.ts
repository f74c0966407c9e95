import { ContainerError } from "../shared/container-error.js";
import { leaderOf } from "../shared/nspawn-leader.js";
import { agentProcesses, namespacePids, placeholderOf } from "./container-members.js";
import { spawn } from "node:child_process";
import { open, readdir, readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { isAlive } from "../../core/process-alive.js";
import { runCommand } from "../../core/run-command.js";
import type { Bind } from "../../core/bind.js";
import { timed, type PhaseClock } from "../../core/phase-clock.js";
import { systemProgram, systemProgramDirs } from "../../core/user-command-path.js";

/** How to start one container with systemd-nspawn. */
export interface NspawnSpec {
  root: string;
  hostname: string;
  payload: ContainerPayload;
  networkNamespacePath: string;
  binds: Bind[];
  /** Size-capped tmpfs mounts laid over nspawn's own (e.g. /tmp, /dev/shm): path → bytes. */
  tmpfs?: { path: string; bytes: number }[];
  logFile: string;
}

/**
 * What the container runs: a placeholder under nspawn's stub init, as the agent (host root;
 * agents and shells are started later with exec), or a NixOS system's own init as PID 1, which
 * halts on SIGRTMIN+3 as systemd does. `enter` (the seccomp helper's argv) wraps the placeholder;
 * an init cannot run under the filter (its boot mounts), its services get systemd's own.
 */
export type ContainerPayload = { kind: "placeholder"; user: string; enter: string[] } | { kind: "init"; init: string };

/**
 * Argv for systemd-nspawn. --register=no/--keep-unit: no machined or systemd-as-PID-1 needed;
 * no_new_privs for everything inside (setuid programs never raise privileges). A placeholder
 * payload runs under a stub init (--as-pid2, which reaps zombies) as the agent; an init payload
 * is PID 1 and is asked to halt with SIGRTMIN+3.
 */
export function nspawnArgs(spec: NspawnSpec): string[] {
  const binds = spec.binds.map(
    (b) => `${b.readOnly ? "--bind-ro" : "--bind"}=${escapeBind(b.source)}:${escapeBind(b.target)}`,
  );
  // Custom mounts go over nspawn's defaults (sized from the host's RAM); nspawn adds nodev, no_new_privs voids suid.
  binds.push(...(spec.tmpfs ?? []).map((t) => `--tmpfs=${escapeBind(t.path)}:mode=1777,size=${t.bytes}`));
  const payload =
    spec.payload.kind === "placeholder"
      ? [
          "--as-pid2",
          `--user=${spec.payload.user}`,
          ...binds,
          "--",
          ...spec.payload.enter,
          "/usr/bin/sleep",
          "infinity",
        ]
      : ["--kill-signal=SIGRTMIN+3", "--link-journal=no", ...binds, "--", spec.payload.init];
  return [
    "--quiet",
    "--register=no",
    "--keep-unit",
    "--console=pipe",
    `--directory=${spec.root}`,
    `--hostname=${spec.hostname}`,
    `--network-namespace-path=${spec.networkNamespacePath}`,
    // With it nspawn mounts a sysfs of that namespace at /sys; without, the host's, which names
    // the host's interfaces and every other sandbox's link.
    "--private-network",
    // nspawn would otherwise copy the host's resolv.conf in: the sandbox's resolver is its DNS filter.
    "--resolv-conf=off",
    "--no-new-privileges=yes",
    ...payload,
  ];
}

/** nspawn splits --bind on ':'; a literal colon in a path is written `\:`. */
function escapeBind(path: string): string {
  return path.replace(/\\/g, "\\\\").replace(/:/g, "\\:");
}

/**
 * Starts nspawn detached (own session, stdio to the sandbox log) so the container outlives the
 * process that started it, and waits until its init is up. Returns nspawn's pid. The spec's
 * user-controlled bind sources are staged mounts of what was checked (stageBinds, made while the
 * rest was prepared): `releaseStaged` takes them down once the container holds its own copies, or
 * when it did not start; `whileReleasing` (the caller's next step) runs meanwhile, and both are
 * done when this returns.
 */
export async function spawnContainer(
  spec: NspawnSpec,
  releaseStaged: () => Promise<void>,
  options: {
    wrap?: (argv: string[]) => string[];
    clock?: PhaseClock | undefined;
    timeoutMs?: number;
    whileReleasing?: (pid: number) => Promise<void>;
  } = {},
): Promise<number> {
  // 30 s: ten containers started at once on a loaded 2-core machine (the test suite's) took over 10.
  const { wrap = (argv: string[]) => argv, clock, timeoutMs = 30_000 } = options;
  let pid: number | undefined;
  try {
    const log = await open(spec.logFile, "a", 0o640);
    try {
      const [program, ...args] = wrap(["systemd-nspawn", ...nspawnArgs(spec)]);
      // Nothing of the caller's environment: nspawn's own processes stay in the container (its
      // stub init is PID 1 there), and /proc/1/environ would show forage-ctl's or the daemon's.
      const env = { PATH: systemProgramDirs.join(":") };
      const child = spawn(program ?? "systemd-nspawn", args, {
        detached: true,
        stdio: ["ignore", log.fd, log.fd],
        env,
      });
      const started = child.pid;
      if (started === undefined)
        throw new ContainerError("systemd-nspawn did not start (is the systemd-container package installed?)");
      child.unref();
      await timed(clock, "nspawn: until the payload runs", () =>
        waitForLeader(started, spec.payload.kind, spec.logFile, timeoutMs),
      );
      pid = started;
    } finally {
      await log.close();
    }
  } finally {
    // The container has its own copies of the binds by now (or never started).
    const release = timed(clock, "nspawn: release staged binds", releaseStaged);
    const next =
      pid === undefined || options.whileReleasing === undefined ? Promise.resolve() : options.whileReleasing(pid);
    const [released, went] = await Promise.allSettled([release, next]);
    if (released.status === "rejected") throw released.reason;
    if (went.status === "rejected") throw went.reason;
  }
  return pid;
}

async function waitForLeader(
  pid: number,
  payload: ContainerPayload["kind"],
  logFile: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const leader = await leaderOf(pid);
    // Ready once the placeholder runs under the stub init, or once a system's init runs.
    if (leader !== undefined && (payload === "init" || (await hasChild(leader)))) return;
    if (!(await isLive(pid))) break;
    // Short: every millisecond here is one of up's (reading /proc costs ~0.1 ms).
    await sleep(3);
  }
  const log = await readFile(logFile, "utf8").catch(() => "");
  throw new ContainerError(
    `the container did not start within ${timeoutMs} ms; systemd-nspawn said:\n${log.trim().split("\n").slice(-10).join("\n")}`,
  );
}

async function hasChild(pid: number): Promise<boolean> {
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, "utf8").catch(() => "");
  return children.trim() !== "";
}

/**
 * Stops a container. A placeholder payload: SIGTERM to everything inside but the init and the
 * placeholder first (agents may save state; see agentProcesses), up to `graceSeconds` for them
 * to end, then nspawn itself. An init payload: nspawn asks the init to halt
 * (it stops its services the way it knows) and gets `graceSeconds`. SIGKILL if it still lingers.
 * Never throws for "already gone".
 */
export async function stopContainer(
  nspawnPid: number,
  graceSeconds: number,
  payload: ContainerPayload["kind"] = "placeholder",
): Promise<void> {
  const leader = await leaderOf(nspawnPid);
  if (leader !== undefined && payload === "placeholder") {
    const placeholder = await placeholderOf(leader);
    // Sent from inside the sandbox's PID namespace: a number freed and reused meanwhile can only
    // name another of its processes, never one of the host's.
    const inside = await namespacePids(await agentProcesses(leader, placeholder));
    if (inside.length > 0)
      await runCommand(
        "nsenter",
        ["--target", String(leader), "--pid", "--", await systemProgram("kill"), "-TERM", ...inside.map(String)],
        { reject: false },
      );
    await waitGone(graceSeconds * 1000, async () => (await agentProcesses(leader, placeholder)).length === 0);
  }
  if (await isLive(nspawnPid)) signal(nspawnPid, "SIGTERM");
  await waitGone(payload === "init" ? graceSeconds * 1000 + 1_000 : 5_000, async () => !(await isLive(nspawnPid)));
  if (await isLive(nspawnPid)) signal(nspawnPid, "SIGKILL");
  await waitGone(5_000, async () => !(await isLive(nspawnPid)));
}

/**
 * Alive and not a zombie: an exited nspawn stays a zombie until its parent reaps it, and that
 * parent (whoever ran `up`, or the host's init) may take its time.
 */
async function isLive(pid: number): Promise<boolean> {
  if (!isAlive(pid)) return false;
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return stat !== "" && stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // exited in the meantime
  }
}

/**
 * Polls `gone` until it holds or `timeoutMs` passes: every 5 ms for the first 200 ms (processes
 * that end on their signal are gone within a few ms, and every stop waits for two of them), then
 * every 20 ms.
 */
async function waitGone(timeoutMs: number, gone: () => Promise<boolean>): Promise<void> {
  const started = Date.now();
  while (Date.now() < started + timeoutMs && !(await gone())) await sleep(Date.now() - started < 200 ? 5 : 20);
}

/**
 * The pid of a systemd-nspawn running the given root, found by scanning /proc: for containers
 * whose pid was never recorded (the process that started them died first).
 */
export async function findContainerByRoot(root: string): Promise<number | undefined> {
  const pids = (await readdir("/proc").catch(() => [] as string[])).filter((entry) => /^\d+$/.test(entry));
  for (const pid of pids) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
    const args = cmdline.split("\0");
    if (args.some((arg) => arg.endsWith("systemd-nspawn")) && args.includes(`--directory=${root}`)) return Number(pid);
  }
  return undefined;
}

/** True when `pid` is a live systemd-nspawn running the given root (not a reused pid). */
export async function isOurContainer(pid: number | null, root: string): Promise<boolean> {
  if (pid === null || !(await isLive(pid))) return false;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "");
  return cmdline.split("\0").includes(`--directory=${root}`);
}

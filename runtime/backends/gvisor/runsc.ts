import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { open, readFile, rm } from "node:fs/promises";
import { killSandboxProcesses, type SandboxCgroup } from "../../cgroups/sandbox-cgroup.js";
import { findExecutable } from "../../core/find-executable.js";
import { pathUnder } from "../../core/names.js";
import { metadataPath, type RuntimePaths } from "../../core/paths.js";
import { runCommand } from "../../core/run-command.js";
import { systemProgramDirs } from "../../core/user-command-path.js";
import { ContainerError } from "../shared/container-error.js";
import type { GvisorStack } from "../../../generator/config/runtime-names.js";
import { inNamespace, netstackLaunch } from "./netstack.js";

/** runsc as forage-ctl runs it: the program, its state directory, the platform. */
export interface Runsc {
  program: string;
  /** runsc's own state (`<run>/gvisor`): root's alone, gone at reboot as the sandboxes are. */
  stateRoot: string;
  platform: "ptrace" | "kvm" | "systrap";
  /** The sandbox's network stack: gVisor's own, or the host's in the sandbox's namespace (netstack.ts). */
  stack: GvisorStack;
  /** The sandbox's network namespace: with gVisor's stack, every runsc call runs there (netstack.ts). */
  namespace: string;
}

/** Where runsc keeps its containers' state for this run directory. */
export function runscStateRoot(paths: RuntimePaths): string {
  return pathUnder(paths.gvisorDir, "state");
}

/** A sandbox's OCI bundle (config.json), made at each start. */
export function bundlePath(paths: RuntimePaths, name: string): string {
  return pathUnder(paths.gvisorDir, "bundles", name);
}

/** Where runsc's own output for a sandbox goes (beside its metadata, root's). */
export function runscLogPath(paths: RuntimePaths, name: string): string {
  return metadataPath(paths, name).replace(/\.json$/, ".log");
}

/** The installed runsc (Debian: the runsc package; NixOS: pkgs.gvisor), or undefined. */
export function findRunsc(): Promise<string | undefined> {
  return findExecutable(["runsc"], systemProgramDirs);
}

/**
 * runsc's argv on every call. --network: gVisor's own stack, or the host's in the namespace runsc
 * is started in (the sandbox's, with its veth and host-side table); see netstack.ts.
 * --ignore-cgroups: the sandbox's processes stay in the groups runsc was started in, the
 * sandbox's own (forage-ctl made them with its limits, as for nspawn). --host-uds=open: a program
 * inside may connect to the host sockets bound in (the SSH agent's, the push gate's), never make one.
 */
function runscArgv(runsc: Runsc, args: readonly string[]): string[] {
  return [
    runsc.program,
    `--root=${runsc.stateRoot}`,
    `--platform=${runsc.platform}`,
    `--network=${runsc.stack}`,
    "--ignore-cgroups",
    "--host-uds=open",
    ...args,
  ];
}

/**
 * The host argv of a runsc command for the sandbox: in its network namespace with gVisor's stack.
 * When the namespace's path is gone (a start that failed half-way), runsc runs here: `delete
 * --force` still removes its record, and stop kills what is left in the sandbox's cgroup.
 */
export function runscArgs(runsc: Runsc, args: readonly string[]): string[] {
  const argv = runscArgv(runsc, args);
  return runsc.stack === "sandbox" && existsSync(runsc.namespace) ? inNamespace(runsc.namespace, argv) : argv;
}

/** The host argv that boots the sandbox: `runsc run` or `runsc restore`, detached. */
function bootArgs(runsc: Runsc, args: readonly string[]): string[] {
  const argv = runscArgv(runsc, args);
  return runsc.stack === "sandbox" ? netstackLaunch(runsc.namespace, argv) : argv;
}

/**
 * Starts a container detached from its bundle (`run`, or `restore` from a checkpoint image: see
 * checkpoint.ts) and returns its sandbox's (the sentry's) host PID, which runsc writes to a file
 * beside the bundle: asking `runsc state` for it costs ~40 ms of every up. runsc's sandbox and
 * gofer keep the descriptors they were given, so its output goes to `logFile` (a pipe would stay
 * open as long as they run).
 */
export async function runDetached(
  runsc: Runsc,
  id: string,
  bundle: string,
  logFile: string,
  wrap: (argv: string[]) => string[] = (argv) => argv,
  boot: { restoreFrom: string } | "run" = "run",
): Promise<number> {
  const log = await open(logFile, "a", 0o600);
  const pidFile = join(bundle, "sentry.pid");
  const verb = boot === "run" ? ["run"] : ["restore", `--image-path=${boot.restoreFrom}`];
  const doing = boot === "run" ? "start" : "restore";
  try {
    const [program = "", ...args] = wrap(
      bootArgs(runsc, [...verb, "--detach", `--bundle=${bundle}`, `--pid-file=${pidFile}`, id]),
    );
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(program, args, { stdio: ["ignore", log.fd, log.fd] });
      child.once("error", reject);
      child.once("exit", (status) => resolve(status));
    });
    if (code !== 0) {
      const said = (await readFile(logFile, "utf8").catch(() => "")).trim().split("\n").slice(-10).join("\n");
      throw new ContainerError(`runsc could not ${doing} the sandbox (exit ${code}); it said:\n${said}`);
    }
    const pid = Number((await readFile(pidFile, "utf8").catch(() => "")).trim());
    // Without its pid the sandbox would run unseen (status stopped, exec refused): a failed start.
    if (!Number.isInteger(pid) || !(await sentryRuns(runsc.stateRoot, pid, bundle, id)))
      throw new ContainerError("runsc started the sandbox but its sandbox process is not running");
    return pid;
  } finally {
    await log.close();
  }
}

/**
 * True when `pid` is a runsc sandbox of `stateRoot`, booted from `bundle` as container `id`.
 * Read from /proc: asking `runsc state` costs ~40 ms, and every exec asks first.
 */
export async function sentryRuns(stateRoot: string, pid: number, bundle: string, id: string): Promise<boolean> {
  const argv = (await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")).split("\0");
  return (
    argv[0] === "runsc-sandbox" &&
    argv.includes(`--root=${stateRoot}`) &&
    argv.includes(`--bundle=${bundle}`) &&
    argv.includes(id)
  );
}

/** The state runsc keeps of a container: its status and the host PID of its sandbox (the sentry). */
export async function containerState(runsc: Runsc, id: string): Promise<{ status: string; pid: number } | undefined> {
  const [program = "", ...args] = runscArgs(runsc, ["state", id]);
  const result = await runCommand(program, args, { reject: false, timeoutMs: 10_000 });
  if (result.failed) return undefined;
  try {
    const state = JSON.parse(result.stdout) as { status?: unknown; pid?: unknown };
    if (typeof state.status !== "string" || typeof state.pid !== "number") return undefined;
    return { status: state.status, pid: state.pid };
  } catch {
    return undefined;
  }
}

/**
 * How many processes of the container are not its reaper, from `runsc ps` (this runsc lists PIDs
 * only, e.g. [1,2,6,7]): PID 1 and the one sleep it keeps as its child are the reaper's, so what
 * is beyond two is the agents'. 0 when runsc cannot tell (nothing to wait for).
 */
export async function othersRunning(runsc: Runsc, id: string): Promise<number> {
  const [program = "", ...args] = runscArgs(runsc, ["ps", "--format=json", id]);
  const result = await runCommand(program, args, { reject: false, timeoutMs: 10_000 });
  try {
    const listed = JSON.parse(result.stdout) as unknown;
    return Array.isArray(listed) ? Math.max(0, listed.length - 2) : 0;
  } catch {
    return 0;
  }
}

/**
 * The container's processes that have a controlling terminal, from `runsc ps`'s table (its JSON
 * has PIDs only): `UID PID PPID C TTY STIME TIME CMD`, TTY "?" for none. PID 1 never counts.
 */
export async function processesWithTerminal(runsc: Runsc, id: string): Promise<number[]> {
  const [program = "", ...args] = runscArgs(runsc, ["ps", id]);
  const result = await runCommand(program, args, { reject: false, timeoutMs: 10_000 });
  if (result.failed) return [];
  return parseTerminalHolders(result.stdout);
}

/** The PIDs (not 1) of `runsc ps`'s table rows whose TTY column names a terminal. */
export function parseTerminalHolders(table: string): number[] {
  const [header = "", ...rows] = table.trim().split("\n");
  const columns = header.trim().split(/\s+/);
  const pidColumn = columns.indexOf("PID");
  const ttyColumn = columns.indexOf("TTY");
  if (pidColumn < 0 || ttyColumn < 0) return [];
  return rows
    .map((row) => row.trim().split(/\s+/))
    .filter((fields) => fields[ttyColumn] !== undefined && fields[ttyColumn] !== "?")
    .map((fields) => Number(fields[pidColumn]))
    .filter((pid) => Number.isInteger(pid) && pid > 1);
}

/**
 * Removes runsc's container `id` (its sandbox and gofer killed), whose record says `status`.
 * Under load runsc's own wait for its sandbox to stop can pass its deadline ("waiting sandbox
 * stop: context deadline exceeded", seen in CI): then what runs in the sandbox's cgroup is killed
 * and runsc deletes what it still knows of it. A record that says paused (a checkpoint's, see
 * checkpoint.ts) this runsc cannot delete at all: it panics on the change ("invalid state
 * transition: paused => stopped"). Its two files go by hand, once nothing in the cgroup runs.
 */
export async function removeContainer(
  runsc: Runsc,
  id: string,
  cgroup: SandboxCgroup | null,
  status: string,
): Promise<void> {
  if (status === "paused" && cgroup !== null) {
    await killSandboxProcesses(cgroup);
    const record = join(runsc.stateRoot, `${id}_sandbox:${id}`);
    await Promise.all([rm(`${record}.state`, { force: true }), rm(`${record}.lock`, { force: true })]);
    return;
  }
  await runscCommand(runsc, ["delete", "--force", id], "remove the sandbox").catch(async (error: unknown) => {
    if (cgroup === null) throw error;
    await killSandboxProcesses(cgroup);
    await runscCommand(runsc, ["delete", "--force", id], "remove the sandbox");
  });
}

/** Runs a runsc command that must succeed (kill, delete), or reports what runsc said. */
export async function runscCommand(
  runsc: Runsc,
  args: readonly string[],
  doing: string,
  timeoutMs = 30_000,
): Promise<void> {
  const [program = "", ...rest] = runscArgs(runsc, args);
  const result = await runCommand(program, rest, { reject: false, timeoutMs });
  if (result.failed) throw new ContainerError(`runsc could not ${doing}: ${result.stderr.trim() || result.command}`);
}

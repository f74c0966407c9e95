import { spawn } from "node:child_process";
import { joinCgroupArgv } from "../cgroups/sandbox-cgroup.js";
import { leaderOf } from "../nspawn/container-process.js";
import { execArgs } from "../nspawn/exec-args.js";
import type { SandboxMetadata } from "../state/metadata.js";
import { sandboxEnv } from "./agent-env.js";
import { recordEvent } from "./audit-log.js";
import { requireSandbox, type RuntimeContext } from "./context.js";
import { SandboxError } from "./errors.js";
import { isRunning } from "./start-stop.js";

export interface ExecOptions {
  /** Run as root (forage-ctl shell) instead of the agent user. */
  asRoot?: boolean;
  /** Working directory inside; default: the workspace (agent) or /root (root). */
  cwd?: string;
  /** stdio of the process: inherit streams the caller's terminal; pipe is for programmatic use. */
  stdio?: "inherit" | "pipe";
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs a command in a running sandbox and returns its exit status (128+N for signal N). */
export async function execInSandbox(context: RuntimeContext, name: string, command: string[], options: ExecOptions = {}): Promise<ExecResult> {
  const metadata = await requireSandbox(context, name);
  const result = await execInRunning(context, metadata, command, options);
  await recordEvent(context.paths, name, "exec", { detail: `${command[0] ?? ""} (${command.length - 1} args)`, exitCode: result.exitCode });
  return result;
}

/** Like execInSandbox for a sandbox already read; no audit record (internal steps). */
export async function execInRunning(context: RuntimeContext, metadata: SandboxMetadata, command: string[], options: ExecOptions = {}): Promise<ExecResult> {
  if (command.length === 0) throw new SandboxError("no command given: forage-ctl exec NAME -- COMMAND [ARGS…]", "usage");
  const leader = (await isRunning(context, metadata)) && metadata.pid !== null ? await leaderOf(metadata.pid) : undefined;
  if (leader === undefined) throw new SandboxError(`sandbox "${metadata.name}" is not running (start it with forage-ctl start ${metadata.name})`, "container");
  const { host } = context.settings;
  const user = options.asRoot === true ? null : { name: host.containerUsername, uid: metadata.uid, gid: metadata.gid };
  const argv = execArgs({
    leaderPid: leader,
    user,
    cwd: options.cwd ?? (user === null ? "/root" : host.workspacePath),
    command,
    env: sandboxEnv(metadata, user?.name ?? null, process.env.TERM),
  });
  // Joining the sandbox's cgroup first puts everything started in it under its resource limits.
  return run(metadata.cgroup === null ? argv : joinCgroupArgv(metadata.cgroup, argv), options.stdio ?? "pipe");
}

function run(argv: string[], stdio: "inherit" | "pipe"): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    const [program, ...args] = argv;
    const child = spawn(program ?? "nsenter", args, { stdio });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code, signal) => {
      const exitCode = code ?? 128 + (signal === null ? 0 : signalNumber(signal));
      resolve({ exitCode, stdout, stderr });
    });
  });
}

function signalNumber(signal: NodeJS.Signals): number {
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };
  return numbers[signal] ?? 1;
}

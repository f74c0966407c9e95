import { spawn } from "node:child_process";
import { dropUndefined } from "../../generator/lib/drop-undefined.js";
import { backendOf } from "../backends/registry.js";
import type { SandboxMetadata } from "../state/metadata.js";
import { sandboxEnv } from "./agent-env.js";
import type { RuntimeContext } from "../core/context.js";
import { notRunning } from "./checkpoint-state.js";
import { SandboxError } from "../core/errors.js";

export interface ExecOptions {
  /** Run as root (forage-ctl shell) instead of the agent user. */
  asRoot?: boolean;
  /** Working directory inside; default: the workspace (agent) or /root (root). */
  cwd?: string;
  /** With asRoot: the only capabilities the process keeps (no_new_privs set too). */
  rootCapabilities?: string[];
  /** The terminal type the command sees (default: this process's TERM); validated in sandboxEnv. */
  term?: string;
  /** Run the command on a pseudo-terminal of this size made inside the sandbox (see terminal.ts). */
  terminal?: { rows: number; cols: number };
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * The host argv that runs `command` inside a running sandbox as the agent (or root), in its
 * workspace (or /root), with the sandbox's environment and nothing of the caller's; how it gets
 * in (namespaces, cgroups, the filter) is the sandbox's runtime's (Backend.enter).
 */
export async function execCommand(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  command: string[],
  options: ExecOptions = {},
): Promise<string[]> {
  if (command.length === 0)
    throw new SandboxError("no command given: forage-ctl exec NAME -- COMMAND [ARGS…]", "usage");
  const { host } = context.settings;
  const user = options.asRoot === true ? null : { uid: metadata.uid, gid: metadata.gid };
  const argv = await backendOf(metadata.runtime).enter(context, metadata, {
    user,
    cwd: options.cwd ?? (user === null ? "/root" : host.workspacePath),
    command,
    env: sandboxEnv(metadata, user === null ? null : host.containerUsername, options.term ?? process.env.TERM),
    ...dropUndefined({ rootCapabilities: options.rootCapabilities, terminal: options.terminal }),
  });
  if (argv === undefined) throw await notRunning(context, metadata);
  return argv;
}

/** Runs a command in a running sandbox and collects its output (for internal steps). */
export async function execInRunning(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  command: string[],
  options: ExecOptions = {},
): Promise<ExecResult> {
  const [program, ...args] = await execCommand(context, metadata, command, options);
  return new Promise((resolve, reject) => {
    const child = spawn(program ?? "forage-enter", args, { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ exitCode: code ?? 128, stdout, stderr }));
  });
}

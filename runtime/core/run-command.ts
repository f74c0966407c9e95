import { spawn } from "node:child_process";
import { dropUndefined } from "../../generator/lib/drop-undefined.js";

/** How to run one program (never through a shell: the argv goes to the kernel as is). */
export interface RunOptions {
  /** Written to the program's stdin, which is then closed; without it stdin is /dev/null. */
  input?: string;
  /** Resolve with the result instead of rejecting when the program fails (default: reject). */
  reject?: boolean;
  /** Killed (SIGKILL) after this long, and reported as failed. */
  timeoutMs?: number;
  /** Output kept per stream at most; the program is killed beyond it (default 64 MiB). */
  maxBuffer?: number;
  uid?: number;
  gid?: number;
  cwd?: string;
  /** The whole environment (nothing of this process's is added); default: this process's. */
  env?: Record<string, string>;
  /** "ignore" sends stdout to /dev/null (a program whose output is not wanted). */
  stdout?: "pipe" | "ignore";
}

/** What a finished program did. */
export interface RunResult {
  command: string;
  /** Undefined when it did not exit on its own: killed, or never started (see `spawnError`). */
  exitCode: number | undefined;
  signal: NodeJS.Signals | null;
  /** Its output, without the one final newline programs end with. */
  stdout: string;
  stderr: string;
  failed: boolean;
  timedOut: boolean;
  /** Why it could not be started at all (ENOENT: not installed), or undefined. */
  spawnError: NodeJS.ErrnoException | undefined;
}

/** A program that failed, with its result; the message names the command and what it said. */
export class CommandFailedError extends Error {
  override name = "CommandFailedError";
  constructor(readonly result: RunResult) {
    super(describeFailure(result));
  }
}

const defaultMaxBuffer = 64 * 1024 * 1024;

/**
 * Runs a program to its end and collects its output: the project's one way to run a helper
 * (`nft`, `ip`, `mount`, …). Small on purpose: loading a general process library costs every
 * forage-ctl start more than the helpers it runs.
 */
export function runCommand(file: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const command = [file, ...args].join(" ");
    const child = spawn(file, args, {
      stdio: [options.input === undefined ? "ignore" : "pipe", options.stdout ?? "pipe", "pipe"],
      ...dropUndefined({ uid: options.uid, gid: options.gid, cwd: options.cwd, env: options.env }),
    });
    const output = {
      stdout: collector(child, "stdout", options.maxBuffer),
      stderr: collector(child, "stderr", options.maxBuffer),
    };
    let timedOut = false;
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => ((timedOut = true), child.kill("SIGKILL")), options.timeoutMs);
    let spawnError: NodeJS.ErrnoException | undefined;
    child.once("error", (error: NodeJS.ErrnoException) => (spawnError = error));
    // EPIPE when the program exits without reading its input: its exit status tells the story.
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(options.input);
    child.once("close", (code, signal) => {
      if (timer !== undefined) clearTimeout(timer);
      const exitCode = spawnError === undefined && code !== null ? code : undefined;
      const failed = exitCode !== 0 || timedOut || output.stdout.overflowed() || output.stderr.overflowed();
      const result: RunResult = {
        command,
        exitCode,
        signal,
        stdout: output.stdout.text(),
        stderr: output.stderr.text(),
        failed,
        timedOut,
        spawnError,
      };
      if (failed && options.reject !== false) reject(new CommandFailedError(result));
      else resolve(result);
    });
  });
}

function collector(
  child: ReturnType<typeof spawn>,
  stream: "stdout" | "stderr",
  maxBuffer = defaultMaxBuffer,
): { text(): string; overflowed(): boolean } {
  const chunks: Buffer[] = [];
  let size = 0;
  let overflow = false;
  child[stream]?.on("data", (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBuffer) {
      overflow = true;
      child.kill("SIGKILL");
      return;
    }
    chunks.push(chunk);
  });
  return {
    text: () =>
      Buffer.concat(chunks)
        .toString("utf8")
        .replace(/\r?\n$/, ""),
    overflowed: () => overflow,
  };
}

function describeFailure(result: RunResult): string {
  const how =
    result.spawnError !== undefined
      ? `could not be started (${result.spawnError.code ?? result.spawnError.message})`
      : result.timedOut
        ? "timed out"
        : result.exitCode === undefined
          ? `was killed by ${result.signal ?? "a signal"}`
          : `failed with exit code ${result.exitCode}`;
  const said = result.stderr.trim() === "" ? "" : `: ${result.stderr.trim().split("\n").slice(-5).join("\n")}`;
  return `${result.command} ${how}${said}`;
}

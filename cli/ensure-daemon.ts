import { spawn } from "node:child_process";
import { mkdir, open, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { DaemonUnavailableError, daemonHello, type DaemonHello } from "../runtime/daemon/client.js";
import { socketPath } from "../runtime/daemon/protocol.js";
import { SandboxError } from "../runtime/core/errors.js";
import type { SettingsFile } from "../runtime/settings/settings-file.js";
import { warnIfDaemonServesOther } from "./daemon-settings.js";

/** How long a starting daemon gets to answer (loading a TypeScript config takes a second or two). */
const startTimeoutMs = 10_000;

/** Lines of the daemon's log shown when it does not come up. */
const tailLines = 8;

interface Say {
  progress?: ((step: string) => void) | undefined;
  warn: (message: string) => void;
}

/**
 * Starts the daemon in the background when none answers (forage-ctl run as root, first use on a
 * host without a service manager running it), with the same settings file as this command. It
 * outlives this process; its log is beside the socket. Never fails the command: root does its
 * own work in-process, so a daemon that does not come up is a warning with its log's last lines,
 * and one that serves other settings is a warning naming both.
 */
export async function ensureDaemon(file: SettingsFile, say: Say): Promise<void> {
  const path = socketPath();
  const running = await askDaemon(path, say);
  if (running !== "unreachable") return warnIfDaemonServesOther(running, file, say.warn);
  const started = await startDaemon(file, path, say);
  if (started.kind === "failed") return say.warn(started.message);
  say.progress?.(`started the forage daemon (log: ${started.log})`);
  // Another `up` may have started one first, with other settings.
  await warnIfDaemonServesOther(started.hello, file, say.warn);
}

/** The daemon's hello; "unreachable" when none listens; null when it cannot say (warned). */
async function askDaemon(path: string, say: Say): Promise<DaemonHello | null | "unreachable"> {
  try {
    return await daemonHello(path);
  } catch (error) {
    if (error instanceof DaemonUnavailableError) return "unreachable";
    if (!(error instanceof SandboxError)) throw error;
    say.warn(`cannot tell which settings the running daemon serves: ${error.message}`);
    return null;
  }
}

type Started = { kind: "up"; log: string; hello: DaemonHello | null } | { kind: "failed"; message: string };

async function startDaemon(file: SettingsFile, path: string, say: Say): Promise<Started> {
  const log = join(dirname(path), "daemon.log");
  let offset: number;
  const exit: { status?: string } = {};
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o755 });
    const handle = await open(log, "a", 0o640);
    try {
      offset = (await handle.stat()).size;
      const main = fileURLToPath(new URL("./main.js", import.meta.url));
      // cwd "/": a long-lived daemon must not hold the caller's directory (hence the absolute path).
      const child = spawn(process.execPath, [main, "--config", file.path, "daemon"], {
        cwd: "/",
        detached: true,
        stdio: ["ignore", handle.fd, handle.fd],
      });
      child.once("exit", (code, signal) => (exit.status = code === null ? `signal ${signal}` : `status ${code}`));
      child.once("error", (error) => (exit.status = error.message));
      child.unref();
    } finally {
      await handle.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === undefined) throw error;
    return {
      kind: "failed",
      message: `cannot start the forage daemon (${(error as Error).message}); carrying on without it (root does this command itself), but commands run without sudo need it`,
    };
  }
  for (let waited = 0; waited < startTimeoutMs; waited += 50) {
    // Asked once more after it exits: it may have stepped aside for another `up`'s daemon.
    const exited = exit.status !== undefined;
    const hello = await askDaemon(path, say);
    if (hello !== "unreachable") return { kind: "up", log, hello };
    if (exited) break;
    await sleep(50);
  }
  const how =
    exit.status === undefined ? `did not answer within ${startTimeoutMs / 1000} s` : `exited (${exit.status})`;
  return {
    kind: "failed",
    message: `the forage daemon ${how}; carrying on without it (root does this command itself), but commands run without sudo need it. ${await logTail(log, offset)}`,
  };
}

/** What the daemon wrote to its log in this attempt: the last lines, or that it wrote nothing. */
async function logTail(log: string, offset: number): Promise<string> {
  const written = (await readFile(log)).subarray(offset).toString("utf8");
  const lines = written
    .split("\n")
    .filter((line) => line.trim() !== "")
    .slice(-tailLines);
  if (lines.length === 0) return `It wrote nothing to ${log}.`;
  return `The end of ${log}:\n${lines.map((line) => `  | ${line}`).join("\n")}`;
}

import { spawn, type ChildProcess } from "node:child_process";
import { chownSync, copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { HostUser } from "../../runtime/core/host-user.js";

/** A notification as the test's notification server received it (notification-receiver.mjs). */
export interface ReceivedNotification {
  appName: string;
  replacesId: number;
  icon: string;
  summary: string;
  body: string;
  actions: string[];
  /** e.g. { urgency: 2, "sender-pid": 4242 } */
  hints: Record<string, unknown>;
  expireTimeout: number;
}

/** A user's session bus with a notification server on it, as a desktop session has. */
export interface SessionBus {
  /** `<runUserDir>/<uid>`, the user's XDG_RUNTIME_DIR. */
  runtimeDir: string;
  /** Its socket, `<runtimeDir>/bus`: where a logged-in user's bus is. */
  socket: string;
  /** The oldest notification not taken yet, waiting for one (rejects after `timeoutMs`). */
  next(timeoutMs?: number): Promise<ReceivedNotification>;
  /** Notifications received and not taken by `next`. */
  readonly unread: number;
  stop(): Promise<void>;
}

const support = fileURLToPath(new URL(".", import.meta.url));

/**
 * Starts, as `user`, a real `dbus-daemon --session` listening on `<runUserDir>/<uid>/bus` (made
 * 0700 and the user's, as logind makes /run/user/<uid>) and the test's notification server on
 * it (notification-receiver.mjs, also as the user: a session bus admits only its own uid).
 * Needs root, dbus-daemon and a `runUserDir` the user can pass through.
 */
export async function startSessionBus(user: HostUser, runUserDir: string): Promise<SessionBus> {
  const runtimeDir = join(runUserDir, String(user.uid));
  const socket = join(runtimeDir, "bus");
  mkdirSync(runtimeDir, { mode: 0o700 });
  chownSync(runtimeDir, user.uid, user.gid);
  // The user may not reach the checkout (under /root on a fresh machine): the server's copy is in its runtime dir.
  for (const file of ["dbus-wire.mjs", "notification-receiver.mjs"])
    copyFileSync(join(support, file), join(runtimeDir, file));
  const asUser = {
    uid: user.uid,
    gid: user.gid,
    cwd: "/",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: user.home, XDG_RUNTIME_DIR: runtimeDir },
  };
  const children: ChildProcess[] = [];
  const stop = async (): Promise<void> => {
    await Promise.all(children.reverse().map(ended));
  };
  try {
    const daemon = spawn(
      "dbus-daemon",
      ["--session", "--nofork", `--address=unix:path=${socket}`, "--print-address=1"],
      { ...asUser, stdio: ["ignore", "pipe", "pipe"] },
    );
    children.push(daemon);
    const address = lines(daemon);
    expectLine(await address.next(10_000), (line) => line.startsWith(`unix:path=${socket},`), "dbus-daemon's address");
    const receiver = spawn(process.execPath, [join(runtimeDir, "notification-receiver.mjs"), socket], {
      ...asUser,
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(receiver);
    const received = lines(receiver);
    expectLine(await received.next(10_000), (line) => line === "ready", "the notification server's ready");
    return {
      runtimeDir,
      socket,
      next: async (timeoutMs = 10_000) => JSON.parse(await received.next(timeoutMs)) as ReceivedNotification,
      get unread() {
        return received.unread;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function expectLine(line: string, good: (line: string) => boolean, what: string): void {
  if (!good(line)) throw new Error(`expected ${what}, got ${JSON.stringify(line)}`);
}

/** A child's stdout as lines taken in order; its stderr is kept for the error when it ends early. */
function lines(child: ChildProcess): { next(timeoutMs: number): Promise<string>; unread: number } {
  const queued: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
  createInterface({ input: child.stdout ?? process.stdin }).on("line", (line) => {
    const taker = waiting.shift();
    if (taker === undefined) queued.push(line);
    else taker(line);
  });
  return {
    get unread() {
      return queued.length;
    },
    next: (timeoutMs) => {
      const line = queued.shift();
      if (line !== undefined) return Promise.resolve(line);
      return new Promise((resolve, reject) => {
        const done = (): void => {
          clearTimeout(timer);
          child.off("exit", exited).off("error", exited);
          waiting.splice(waiting.indexOf(taker), 1);
        };
        const fail = (why: string): void => {
          done();
          reject(new Error(`${child.spawnfile} ${why}; it said: ${stderr.trim() || "nothing"}`));
        };
        const taker = (taken: string): void => {
          done();
          resolve(taken);
        };
        const exited = (error?: unknown): void =>
          fail(error instanceof Error ? `could not start: ${error.message}` : "exited");
        const timer = setTimeout(() => fail(`printed nothing within ${timeoutMs} ms`), timeoutMs);
        child.once("exit", exited).once("error", exited);
        waiting.push(taker);
      });
    },
  };
}

/** Ends a child (SIGTERM) and waits until it has. */
function ended(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

import { connect, type Socket } from "node:net";
import type { Operations } from "../api/operations.js";
import { isUserErrorKind, SandboxError } from "../core/errors.js";
import { encode, lineReader, socketPath, type DaemonHello } from "./protocol.js";
import type { Op } from "./requests.js";

export type { DaemonHello } from "./protocol.js";

/** The daemon's socket cannot be reached. */
export class DaemonUnavailableError extends SandboxError {
  override name = "DaemonUnavailableError";
  constructor(path: string, reason: string) {
    super(
      `the forage daemon is not reachable at ${path} (${reason}): start it with \`sudo forage-ctl daemon\` (NixOS: systemctl start forage), or, if it runs, use forage-ctl as the configured user or with sudo (only they may connect)`,
      "general",
    );
  }
}

interface Handlers {
  warn?: (message: string) => void;
  progress?: (step: string) => void;
  stdout?: (data: Buffer) => void;
  stderr?: (data: Buffer) => void;
  onOpen?: (socket: Socket) => void;
}

/** Sends one request and resolves with its result (or rejects with the daemon's error). */
export function request(op: Op, args: Record<string, unknown>, handlers: Handlers = {}, path = socketPath()): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let settled = false;
    const finish = (action: () => void): void => {
      if (!settled) {
        settled = true;
        action();
      }
    };
    socket.once("error", (error: NodeJS.ErrnoException) => finish(() => reject(new DaemonUnavailableError(path, error.code ?? error.message))));
    socket.once("connect", () => {
      socket.write(encode({ op, args }));
      handlers.onOpen?.(socket);
    });
    socket.on(
      "data",
      lineReader(
        (raw) => {
          const message = raw as Record<string, unknown>;
          if (typeof message.warning === "string") handlers.warn?.(message.warning);
          else if (typeof message.progress === "string") handlers.progress?.(message.progress);
          else if (typeof message.stdout === "string") handlers.stdout?.(Buffer.from(message.stdout, "base64"));
          else if (typeof message.stderr === "string") handlers.stderr?.(Buffer.from(message.stderr, "base64"));
          else if ("result" in message) finish(() => resolve(message.result));
          else if (typeof message.error === "object" && message.error !== null) {
            const { message: text, kind } = message.error as Record<string, unknown>;
            // A kind this client does not know (another version's) is still the daemon's refusal.
            finish(() => reject(new SandboxError(String(text), isUserErrorKind(kind) ? kind : "general")));
          }
        },
        (error) => finish(() => reject(error)),
      ),
    );
    socket.once("close", () => finish(() => reject(new SandboxError("the daemon closed the connection without an answer", "general"))));
  });
}

/**
 * Asks the daemon who it is. Null when it is reachable but too old to answer `hello` (it knows
 * no such operation); rejects with DaemonUnavailableError when nothing answers at `path`.
 */
export async function daemonHello(path = socketPath()): Promise<DaemonHello | null> {
  let reply: unknown;
  try {
    reply = await request("hello", {}, {}, path);
  } catch (error) {
    if (error instanceof SandboxError && !(error instanceof DaemonUnavailableError) && error.message === 'unknown operation "hello"') return null;
    throw error;
  }
  const hello = reply as Partial<DaemonHello> | null;
  if (typeof hello?.settings !== "string" || typeof hello.pid !== "number") {
    throw new SandboxError(
      `the daemon at ${path} answered hello with ${JSON.stringify(reply)}, not its settings and pid (mismatched forage-ctl versions? restart it: forage-ctl daemon --stop)`,
      "general",
    );
  }
  return { settings: hello.settings, pid: hello.pid };
}

/** The operations, asked of the daemon (for the CLI run as the configured user). */
export function remoteOperations(warn: (message: string) => void, path = socketPath()): Operations {
  const call = (op: Op, args: Record<string, unknown>): Promise<never> => request(op, args, { warn }, path) as Promise<never>;
  return {
    via: "daemon",
    up: (args, progress) => request("up", { ...args }, { warn, ...(progress === undefined ? {} : { progress }) }, path) as Promise<never>,
    down: (name, grace) => call("down", { name, grace }),
    list: () => call("list", {}),
    status: (name) => call("status", { name }),
    start: (name) => call("start", { name }),
    stop: (name, grace) => call("stop", { name, grace }),
    reset: (name) => call("reset", { name }),
    auditLog: (name) => call("auditLog", { name }),
    logs: (name, lines) => call("logs", { name, lines }),
    gc: (force) => call("gc", { force }),
    snapshot: (name, action) => call("snapshot", { name, action }),
    network: (name, change) => call("network", { name, change }),
    denials: (name) => call("denials", { name }),
    exec: (name, command, streams, asRoot) =>
      request(
        "exec",
        { name, command, asRoot, stdin: streams.stdin !== null, ...(streams.terminal === undefined ? {} : { terminal: { size: streams.terminal.size, term: streams.terminal.term } }) },
        {
          warn,
          stdout: (data) => void streams.stdout.write(data),
          stderr: (data) => void streams.stderr.write(data),
          onOpen: (socket) => {
            streams.stdin?.on("data", (chunk: Buffer) => socket.write(encode({ stdin: chunk.toString("base64") })));
            streams.stdin?.on("end", () => socket.write(encode({ stdinEnd: true })));
            streams.terminal?.onResize((size) => socket.write(encode({ resize: size })));
          },
        },
        path,
      ) as Promise<number>,
  };
}

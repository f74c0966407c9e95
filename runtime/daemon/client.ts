import { connect, type Socket } from "node:net";
import { dropUndefined } from "../../generator/lib/drop-undefined.js";
import { calls, methodsFor, plainOperations, type DaemonHello, type Op, type Request, type Result } from "../api/calls.js";
import type { ExecStreams } from "../api/exec-streams.js";
import type { Operations } from "../api/operations.js";
import { isUserErrorKind, SandboxError } from "../core/errors.js";
import { encode, fieldsOf, lineReader, socketPath, type ExecRelay, type RequestMessage } from "./protocol.js";

export type { DaemonHello } from "../api/calls.js";

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

/** What a client does with the daemon's events before its answer. */
export interface ClientHandlers {
  warn?: (message: string) => void;
  progress?: (step: string) => void;
  stdout?: (data: Buffer) => void;
  stderr?: (data: Buffer) => void;
  onOpen?: (socket: Socket) => void;
}

/**
 * Sends one request message as it is and resolves with the daemon's raw answer (or rejects with
 * its error). Untyped on purpose: callDaemon is the typed way; this one also sends what a
 * schema would refuse, for tests of the daemon's refusals.
 */
export function sendRequest(message: RequestMessage, handlers: ClientHandlers = {}, path = socketPath()): Promise<unknown> {
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
      socket.write(encode(message));
      handlers.onOpen?.(socket);
    });
    socket.on(
      "data",
      lineReader(
        (raw) => {
          const event = fieldsOf(raw);
          if (typeof event.warning === "string") handlers.warn?.(event.warning);
          else if (typeof event.progress === "string") handlers.progress?.(event.progress);
          else if (typeof event.stdout === "string") handlers.stdout?.(Buffer.from(event.stdout, "base64"));
          else if (typeof event.stderr === "string") handlers.stderr?.(Buffer.from(event.stderr, "base64"));
          else if ("result" in event) finish(() => resolve(event.result));
          else if (typeof event.error === "object" && event.error !== null) {
            const { message: text, kind } = fieldsOf(event.error);
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
 * Asks the daemon call `op` with `request` and resolves with its answer, checked against the
 * call's result schema (a daemon of another version is named as the likely cause).
 */
export async function callDaemon<K extends Op>(op: K, request: Request<K>, path = socketPath(), handlers: ClientHandlers = {}, relay?: ExecRelay): Promise<Result<K>> {
  // Spelled out: dropUndefined cannot see through a request generic in K.
  const answer = await sendRequest({ op, args: request, ...(relay === undefined ? {} : { streams: relay }) }, handlers, path);
  const checked = calls[op].result.safeParse(answer);
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0];
  throw new SandboxError(
    `the daemon at ${path} answered ${op} with ${JSON.stringify(answer)?.slice(0, 200)}, not what this forage-ctl expects (${issue?.path.join(".") ?? ""} ${issue?.message ?? ""}; mismatched forage-ctl versions? restart it: forage-ctl daemon --stop)`,
    "general",
  );
}

/**
 * Asks the daemon who it is. Null when it is reachable but too old to answer `hello` (it knows
 * no such operation); rejects with DaemonUnavailableError when nothing answers at `path`.
 */
export async function daemonHello(path = socketPath()): Promise<DaemonHello | null> {
  try {
    return await callDaemon("hello", {}, path);
  } catch (error) {
    if (error instanceof SandboxError && !(error instanceof DaemonUnavailableError) && error.message === 'unknown operation "hello"') return null;
    throw error;
  }
}

/** The operations, asked of the daemon (for the CLI run as the configured user). */
export function remoteOperations(warn: (message: string) => void, path = socketPath()): Operations {
  return {
    via: "daemon",
    ...methodsFor(plainOperations, (op) => (request) => callDaemon(op, request, path, { warn })),
    up: (request, progress) => callDaemon("up", request, path, dropUndefined({ warn, progress })),
    exec: (request, streams) => execThroughDaemon(request, streams, path, warn),
  };
}

/** exec through the daemon: the caller's stdin and terminal size go to it, its output comes back. */
function execThroughDaemon(request: Request<"exec">, streams: ExecStreams, path: string, warn: (message: string) => void): Promise<number> {
  const { terminal } = streams;
  const relay: ExecRelay = dropUndefined({ stdin: streams.stdin !== null, terminal: terminal === undefined ? undefined : { size: terminal.size, term: terminal.term } });
  const handlers: ClientHandlers = {
    warn,
    stdout: (data) => void streams.stdout.write(data),
    stderr: (data) => void streams.stderr.write(data),
    onOpen: (socket) => {
      streams.stdin?.on("data", (chunk: Buffer) => socket.write(encode({ stdin: chunk.toString("base64") })));
      streams.stdin?.on("end", () => socket.write(encode({ stdinEnd: true })));
      terminal?.onResize((size) => socket.write(encode({ resize: size })));
    },
  };
  return callDaemon("exec", request, path, handlers, relay);
}

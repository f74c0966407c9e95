import { connect, type Socket } from "node:net";
import { dropUndefined } from "../../generator/lib/drop-undefined.js";
import { methodsFor } from "../api/call-methods.js";
import {
  callShapes,
  plainOperations,
  type DaemonHello,
  type Op,
  type PlainOperation,
  type Result,
} from "../api/call-table.js";
import type { Request } from "../api/call-requests.js";
import type { ExecStreams } from "../api/exec-streams.js";
import type { Operations } from "../api/operations.js";
import { isUserErrorKind, SandboxError, type UserErrorKind } from "../core/errors.js";
import { encode, fieldsOf, lineReader, socketPath, type ExecRelay, type RequestMessage } from "./protocol.js";

export type { DaemonHello } from "../api/call-table.js";

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

/** The daemon's refusal, reported as the daemon's side reports it (a config's problems, say). */
export class RelayedError extends SandboxError {
  override name = "RelayedError";
  constructor(
    message: string,
    kind: UserErrorKind,
    private readonly relayedReport: string | undefined,
  ) {
    super(message, kind);
  }

  override report(program: string): string {
    return this.relayedReport ?? super.report(program);
  }
}

/** What a client does with the daemon's events before its answer. */
export interface ClientHandlers {
  warn?: (message: string) => void;
  /** A line for stderr as it is (a config's notes). */
  note?: (line: string) => void;
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
export function sendRequest(
  message: RequestMessage,
  handlers: ClientHandlers = {},
  path = socketPath(),
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let settled = false;
    const finish = (action: () => void): void => {
      if (!settled) {
        settled = true;
        action();
      }
    };
    socket.once("error", (error: NodeJS.ErrnoException) =>
      finish(() => reject(new DaemonUnavailableError(path, error.code ?? error.message))),
    );
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
          else if (typeof event.note === "string") handlers.note?.(event.note);
          else if (typeof event.progress === "string") handlers.progress?.(event.progress);
          else if (typeof event.stdout === "string") handlers.stdout?.(Buffer.from(event.stdout, "base64"));
          else if (typeof event.stderr === "string") handlers.stderr?.(Buffer.from(event.stderr, "base64"));
          else if ("result" in event) finish(() => resolve(event.result));
          else if (typeof event.error === "object" && event.error !== null) {
            const { message: text, kind, report, internal } = fieldsOf(event.error);
            // A bug in the daemon stays a bug here (the CLI says so, exit 70); its log has the stack.
            if (internal === true)
              finish(() =>
                reject(new Error(`the forage daemon failed (a bug; its log has the details): ${String(text)}`)),
              );
            // A kind this client does not know (another version's) is still the daemon's refusal.
            else
              finish(() =>
                reject(
                  new RelayedError(
                    String(text),
                    isUserErrorKind(kind) ? kind : "general",
                    typeof report === "string" ? report : undefined,
                  ),
                ),
              );
          }
        },
        (error) => finish(() => reject(error)),
      ),
    );
    socket.once("close", () =>
      finish(() => reject(new SandboxError("the daemon closed the connection without an answer", "general"))),
    );
  });
}

/**
 * Asks the daemon call `op` with `request` and resolves with its answer, checked by the call's
 * answer check (a daemon of another version is named as the likely cause).
 */
export async function callDaemon<K extends Op>(
  op: K,
  request: Request<K>,
  path = socketPath(),
  handlers: ClientHandlers = {},
  relay?: ExecRelay,
): Promise<Result<K>> {
  const answer = await sendRequest({ op, args: request, ...dropUndefined({ streams: relay }) }, handlers, path);
  try {
    return callShapes[op].result(answer) as Result<K>;
  } catch (error) {
    throw new SandboxError(
      `the daemon at ${path} answered ${op} with ${JSON.stringify(answer)?.slice(0, 200)}, not what this forage-ctl expects (${error instanceof Error ? error.message : String(error)}; mismatched forage-ctl versions? restart it: forage-ctl daemon --stop)`,
      "general",
    );
  }
}

/**
 * Asks the daemon who it is. Null when it is reachable but too old to answer `hello` (it knows
 * no such operation); rejects with DaemonUnavailableError when nothing answers at `path`.
 */
export async function daemonHello(path = socketPath()): Promise<DaemonHello | null> {
  try {
    return await callDaemon("hello", {}, path);
  } catch (error) {
    if (
      error instanceof SandboxError &&
      !(error instanceof DaemonUnavailableError) &&
      error.message === 'unknown operation "hello"'
    )
      return null;
    throw error;
  }
}

/**
 * The operations, asked of the daemon at `path` (the user's socket; root's, rootSocketPath, for
 * root's commands). `note` prints the lines a request that read the settings afresh relays.
 */
export function remoteOperations(
  warn: (message: string) => void,
  path = socketPath(),
  note?: (line: string) => void,
): Operations {
  const printers: ClientHandlers = dropUndefined({ warn, note });
  return {
    via: "daemon",
    ...methodsFor(
      plainOperations,
      <P extends PlainOperation>(op: P) =>
        (request: Request<P>) =>
          callDaemon<P>(op, request, path, printers),
    ),
    up: (request, progress) => callDaemon("up", request, path, dropUndefined({ ...printers, progress })),
    checkpoint: (request, progress) =>
      callDaemon("checkpoint", request, path, dropUndefined({ ...printers, progress })),
    exec: (request, streams) => execThroughDaemon(request, streams, path, printers),
  };
}

/** exec through the daemon: the caller's stdin and terminal size go to it, its output comes back. */
function execThroughDaemon(
  request: Request<"exec">,
  streams: ExecStreams,
  path: string,
  printers: ClientHandlers,
): Promise<number> {
  const { terminal } = streams;
  const relay: ExecRelay = dropUndefined({
    stdin: streams.stdin !== null,
    terminal: terminal === undefined ? undefined : { size: terminal.size, term: terminal.term },
  });
  const handlers: ClientHandlers = {
    ...printers,
    stdout: (data) => void streams.stdout.write(data),
    stderr: (data) => void streams.stderr.write(data),
    onOpen: (socket) => {
      // A caller may have set a text encoding on its stdin (ink did): its chunks are then strings.
      streams.stdin?.on("data", (chunk: Buffer | string) =>
        socket.write(
          encode({ stdin: (typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk).toString("base64") }),
        ),
      );
      streams.stdin?.on("end", () => socket.write(encode({ stdinEnd: true })));
      terminal?.onResize((size) => socket.write(encode({ resize: size })));
      streams.onSignal?.((signal) => socket.write(encode({ signal })));
    },
  };
  return callDaemon("exec", request, path, handlers, relay);
}

import { EventEmitter } from "node:events";
import { createServer, type Server, type Socket } from "node:net";
import { PassThrough } from "node:stream";
import { isOp, parseRequest, type Op, type Result } from "../api/calls.js";
import { localOperations } from "../api/local-operations.js";
import type { Operations } from "../api/operations.js";
import { lookupHostUser } from "../core/host-user.js";
import type { RuntimeContext } from "../core/context.js";
import { SandboxError, UserError } from "../core/errors.js";
import { warmContextTemplates } from "../context/render-context.js";
import { buildId } from "../core/build-id.js";
import { listenPrivately, prepareSocketDirectory } from "../core/private-socket.js";
import { encode, fieldsOf, lineReader, type ServerMessage } from "./protocol.js";
import { terminalSize } from "./relay-schemas.js";
import { formatDiagnostic } from "../../generator/config/diagnostic.js";
import type { Model } from "../../generator/model/model.js";
import { pathOverridesOf, runtimePaths } from "../core/paths.js";
import { loadSettings } from "../settings/load-settings.js";
import type { SettingsFile } from "../settings/settings-file.js";
import { daemonHandlers, type Caller, type Connection, type Served } from "./daemon-handlers.js";
import { gatewayUid, requireGatewayCall } from "./gateway-socket.js";
import { daemonApprovalQueue } from "./approval-handlers.js";
import { SandboxServices } from "./sandbox-services.js";

/**
 * The privileged daemon: serves sandbox operations to the configured user (and root) over one
 * unix socket (owner the user, mode 0600; see listenPrivately), and to root alone over another
 * (root's, mode 0600), where a request is root's own command: its settings are read afresh from
 * the file, as `sudo forage-ctl` would, only without loading the toolchain first. With a gateway
 * account, a third socket (that account's, mode 0600) serves the SSH gateway a few calls under
 * the user's limits (gateway-socket.ts). Containers are detached from it, so a daemon restart
 * loses nothing: state is re-read from the metadata on every request.
 */
export async function serveDaemon(context: RuntimeContext, paths: DaemonSockets, log: (line: string) => void, file: SettingsFile): Promise<DaemonServer> {
  const user = await lookupHostUser(context.settings.host.user);
  if (user === undefined) throw new SandboxError(`user "${context.settings.host.user}" (from ${file.path}) does not exist on this host: set \`user\` to an existing account`, "config");
  const served: Served = {
    ownerUid: user.uid,
    hello: { settings: file.path, pid: process.pid, version: buildId(), paths: pathOverridesOf() },
    // After the answer is sent: the daemon's SIGTERM handler closes the server and exits.
    stop: () => void setImmediate(() => process.kill(process.pid, "SIGTERM")),
    reloadSettings: () => loadSettings(file),
    approvals: daemonApprovalQueue(context, user, log),
  };
  const gatewayUser = paths.gateway?.user;
  const gateway =
    paths.gateway === undefined || gatewayUser === undefined ? undefined : { path: paths.gateway.path, user: gatewayUser, uid: await gatewayUid(gatewayUser, context.settings.host.user) };
  // Without a gateway account, a gateway socket an earlier daemon left goes (prepareSocketDirectory removes it).
  if (paths.gateway !== undefined && gateway === undefined) await prepareSocketDirectory(paths.gateway.path);
  const listening = [
    { caller: "user" as const, path: paths.user, uid: user.uid },
    { caller: "root" as const, path: paths.root, uid: 0 },
    ...(gateway === undefined ? [] : [{ caller: "gateway" as const, path: gateway.path, uid: gateway.uid }]),
  ];
  // Each running sandbox's SSH agent and push gate, which ask the daemon's approvals queue.
  const services = new SandboxServices(served.approvals.ask, log);
  const reconcile = setInterval(() => void services.reconcile(context), 2_000);
  const afterCall = (op: Op): Promise<void> => (lifecycleOps.has(op) ? services.reconcile(context) : Promise.resolve());
  const servers: DaemonServer[] = [];
  for (const { caller, path, uid } of listening) {
    await prepareSocketDirectory(path);
    const server = callServer(context, log, { served, operations: localOperations, caller, afterCall });
    servers.push(server);
    await listenPrivately(server.listener, path, uid);
  }
  const gatewayNote = gateway === undefined ? "" : `, ${gateway.path} (gateway user ${gateway.user}, uid ${gateway.uid}, and root only)`;
  log(`listening on ${paths.user} (user ${user.uid} and root only)${gatewayNote} and ${paths.root} (root only), settings from ${file.path}`);
  // While nothing is asked yet: the first sandbox's start then renders its context in a millisecond.
  setTimeout(() => void warmContextTemplates(), 50).unref();
  void services.reconcile(context);
  return {
    close: async () => {
      clearInterval(reconcile);
      // Nobody is left to answer: the askers hear `expired` (a denial) rather than a dropped connection.
      served.approvals.close();
      // Their answers are sent once the askers' calls resume (a turn of the event loop).
      await new Promise((resolve) => setImmediate(resolve));
      await Promise.all([...servers.map((server) => server.close()), services.close()]);
      // The expiries' lines in the sandboxes' audit logs, written before the daemon exits.
      await served.approvals.flush();
    },
  };
}

/** Calls after which the sandboxes' services are reconciled before the answer is sent. */
const lifecycleOps = new Set<Op>(["up", "start", "stop", "reset", "down"]);

/** The daemon's sockets; the gateway's only when a gateway account is named (see gateway-socket.ts). */
export interface DaemonSockets {
  user: string;
  root: string;
  /** The gateway's socket, and its account (none: no gateway socket, and a stale one is removed). */
  gateway?: { path: string; user: string | undefined } | undefined;
}

export interface DaemonServer {
  /** Stops listening and drops every client connection; sandboxes keep running. */
  close(): Promise<void>;
}

/** What a call server needs besides its context: who it serves, and the operations it runs. */
export interface CallServerParts {
  served: Served;
  /** The in-process operations for one request's context: localOperations (tests: a fake). */
  operations: (context: RuntimeContext) => Operations;
  /** Who can connect to its socket: the user (and root), or root alone (listenPrivately decides). */
  caller: Caller;
  /** Run after a call succeeded, before its answer is sent (the daemon: reconciles sandbox services). */
  afterCall?: (op: Op) => Promise<void>;
}

/**
 * A server, not yet listening, that answers each connection's one call of the table: the request
 * parsed with the call's schema, then handled by daemonHandlers around `parts.operations`.
 */
export function callServer(context: RuntimeContext, log: (line: string) => void, parts: CallServerParts): DaemonServer & { listener: Server } {
  const connections = new Set<Socket>();
  const listener = createServer((socket) => {
    connections.add(socket);
    socket.once("close", () => connections.delete(socket));
    handleConnection(socket, (op, args, connection) => dispatch({ context, parts, log }, op, args, connection));
  });
  return {
    listener,
    close: () =>
      new Promise<void>((resolve) => {
        listener.close(() => resolve());
        // Attached terminals would hold the daemon forever: hang them up (the sandboxes stay).
        for (const socket of connections) socket.destroy();
      }),
  };
}

/** Reads a connection's messages: the first request starts the call; the rest feed an exec. */
function handleConnection(socket: Socket, call: (op: string, args: unknown, connection: Connection) => Promise<void>): void {
  const connection: Connection = {
    send: (message: ServerMessage): void => void socket.write(encode(message)),
    stdin: new PassThrough(),
    resizes: new EventEmitter(),
    relay: undefined,
  };
  const { stdin } = connection;
  let started = false;
  socket.on(
    "data",
    lineReader(
      (line) => {
        const message = fieldsOf(line);
        if (!started && typeof message.op === "string") {
          started = true;
          connection.relay = message.streams;
          void call(message.op, message.args, connection).finally(() => socket.end());
        } else if (typeof message.stdin === "string") stdin.write(Buffer.from(message.stdin, "base64"));
        else if (message.stdinEnd === true) stdin.end();
        else if (message.resize !== undefined) {
          const size = terminalSize.safeParse(message.resize);
          if (size.success) connection.resizes.emit("resize", size.data);
        }
      },
      (error) => {
        connection.send({ error: { message: error.message, kind: "usage" } });
        socket.destroy();
      },
    ),
  );
  socket.on("error", () => stdin.destroy());
  socket.on("close", () => {
    stdin.end();
    connection.resizes.emit("hangUp");
  });
}

/** What answering a call needs: the daemon's context, its parts, and its log. */
interface Serving {
  context: RuntimeContext;
  parts: CallServerParts;
  log: (line: string) => void;
}

/**
 * Answers one request: a result, or an error with its kind and report (a bug is logged with its
 * stack). Root's requests run with the settings read afresh (their notes go to its stderr), except
 * those about the daemon itself.
 */
async function dispatch({ context, parts, log }: Serving, op: string, args: unknown, connection: Connection): Promise<void> {
  try {
    if (!isOp(op)) throw new SandboxError(`unknown operation "${op}"`, "usage");
    if (parts.caller === "gateway") requireGatewayCall(op);
    const settings = parts.caller === "root" && !aboutTheDaemon.has(op) ? await freshSettings(parts.served, connection) : undefined;
    // Warnings of this request go to its client.
    const warn = (warning: string): void => connection.send({ warning });
    const requestContext: RuntimeContext = settings === undefined ? { ...context, warn } : { settings, paths: runtimePaths(settings.host.stateDir), warn };
    // JSON drops undefined: an operation with no result answers null.
    const result = await answer({ context: requestContext, parts, log }, op, args, connection);
    await parts.afterCall?.(op);
    connection.send({ result: result ?? null });
  } catch (error) {
    const kind = error instanceof UserError ? error.kind : "general";
    const text = error instanceof Error ? error.message : String(error);
    if (!(error instanceof UserError)) log(`error in ${op}: ${error instanceof Error ? (error.stack ?? text) : text}`);
    // A user error comes with what the CLI prints for it; anything else is the daemon's bug.
    connection.send({ error: error instanceof UserError ? { message: text, kind, report: error.report("forage-ctl") } : { message: text, kind, internal: true } });
  }
}

/** Calls about the daemon itself, answered without reading the settings. */
const aboutTheDaemon = new Set<Op>(["hello", "proxyStatus", "shutdown", "approvals", "approve", "deny", "approvalAsk"]);

/** Calls not logged: hello comes before other commands, approvals is polled by --watch. */
const unlogged = new Set<Op>(["hello", "approvals"]);

/** The settings as the file now says (what root's own command would load); its notes go to the client. */
async function freshSettings(served: Served, connection: Connection): Promise<Model | undefined> {
  if (served.reloadSettings === undefined) return undefined;
  const { settings, notes } = await served.reloadSettings();
  for (const note of notes) connection.send({ note: formatDiagnostic(note) });
  return settings;
}

/** Call `op`, typed from here on: its request parsed with its schema, handled by its handler. */
async function answer<K extends Op>({ context, parts, log }: Serving, op: K, args: unknown, connection: Connection): Promise<Result<K>> {
  const request = parseRequest(op, args);
  if (!unlogged.has(op)) log(`${op} ${"name" in request && typeof request.name === "string" ? request.name : ""}`.trim());
  const handlers = daemonHandlers({ context, served: parts.served, connection, caller: parts.caller }, parts.operations(context));
  return handlers[op](request);
}

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
import { pathOverridesOf, runtimePaths } from "../core/paths.js";
import { loadSettings } from "../settings/load-settings.js";
import type { SettingsFile } from "../settings/settings-file.js";
import { daemonHandlers, type Caller, type Connection, type Served } from "./daemon-handlers.js";
import { gatewayUid, requireGatewayCall } from "./gateway-socket.js";
import { daemonApprovalQueue } from "./approval-handlers.js";
import { SandboxServices } from "./sandbox-services.js";
import type { UpResult } from "../api/sandbox-view.js";
import { servedByProxy } from "../gates/api-proxy/proxy-status.js";
import { DaemonProxy } from "./daemon-proxy.js";
import { FollowedSettings, fileKey } from "./followed-settings.js";
import { isRelayedSignal } from "../core/relayed-signals.js";
import { settingsLoader } from "./settings-loader.js";
import { PoolKeeper } from "../sandbox/pool-keeper.js";

/**
 * The privileged daemon: serves sandbox operations to the configured user (and root) over one
 * unix socket (owner the user, mode 0600; see listenPrivately), and to root alone over another
 * (root's, mode 0600), where a request is root's own command: its settings are read afresh from
 * the file, as `sudo forage-ctl` would, only without loading the toolchain first. With a gateway
 * account, a third socket (that account's, mode 0600) serves the SSH gateway a few calls under
 * the user's limits (gateway-socket.ts). Containers are detached from it, so a daemon restart
 * loses nothing: state is re-read from the metadata on every request.
 */
export async function serveDaemon(
  context: RuntimeContext,
  paths: DaemonSockets,
  log: (line: string) => void,
  file: SettingsFile,
  cli: string,
): Promise<ServingDaemon> {
  const user = await lookupHostUser(context.settings.host.user);
  if (user === undefined)
    throw new SandboxError(
      `user "${context.settings.host.user}" (from ${file.path}) does not exist on this host: set \`user\` to an existing account`,
      "config",
    );
  // Keyed before this start's load was used: an edit since then is read by the first request.
  const followed = new FollowedSettings(
    file.path,
    context.settings,
    await fileKey(file.path),
    settingsLoader(file, user, cli),
  );
  const now = (): RuntimeContext => ({ ...context, settings: followed.latest });
  const served: Served = {
    followed,
    ownerUid: user.uid,
    hello: { settings: file.path, pid: process.pid, version: buildId(), paths: pathOverridesOf() },
    // After the answer is sent: the daemon's SIGTERM handler closes the server and exits.
    stop: () => void setImmediate(() => process.kill(process.pid, "SIGTERM")),
    reloadSettings: () => loadSettings(file),
    approvals: daemonApprovalQueue(context, user, log),
  };
  const proxy = new DaemonProxy(() => followed.latest, context.paths, log, served.approvals.ask);
  const gatewayUser = paths.gateway?.user;
  const gateway =
    paths.gateway === undefined || gatewayUser === undefined
      ? undefined
      : { path: paths.gateway.path, user: gatewayUser, uid: await gatewayUid(gatewayUser, context.settings.host.user) };
  // Without a gateway account, a gateway socket an earlier daemon left goes (prepareSocketDirectory removes it).
  if (paths.gateway !== undefined && gateway === undefined) await prepareSocketDirectory(paths.gateway.path);
  const listening = [
    { caller: "user" as const, path: paths.user, uid: user.uid },
    { caller: "root" as const, path: paths.root, uid: 0 },
    ...(gateway === undefined ? [] : [{ caller: "gateway" as const, path: gateway.path, uid: gateway.uid }]),
  ];
  // Each running sandbox's SSH agent and push gate, which ask the daemon's approvals queue.
  const services = new SandboxServices(served.approvals.ask, log);
  // Warm pools are refilled behind the calls, never awaited; after a call, a moment later: the
  // caller's next command (an exec, an attach) does not share the CPU with a member's start.
  const pools = new PoolKeeper(log);
  let lastCall = 0;
  const refill = (): void => {
    if (Date.now() - lastCall >= refillAfterCallMs) pools.nudge(now);
  };
  const afterLifecycleCall = (): void => {
    lastCall = Date.now();
    setTimeout(refill, refillAfterCallMs + 20).unref();
  };
  // Each round also catches a sandbox root started in its own process, and a proxy needed since.
  const round = (): Promise<void> => Promise.all([services.reconcile(now()), proxy.ensure()]).then(() => undefined);
  const reconcile = setInterval(() => void (refill(), round()), 2_000);
  const afterCall = (op: Op): Promise<void> =>
    lifecycleOps.has(op) ? (afterLifecycleCall(), round()) : Promise.resolve();
  const servers: DaemonServer[] = [];
  for (const { caller, path, uid } of listening) {
    await prepareSocketDirectory(path);
    const server = callServer(context, log, { served, operations: localOperations, caller, afterCall });
    servers.push(server);
    await listenPrivately(server.listener, path, uid);
  }
  const gatewayNote =
    gateway === undefined ? "" : `, ${gateway.path} (gateway user ${gateway.user}, uid ${gateway.uid}, and root only)`;
  log(
    `listening on ${paths.user} (user ${user.uid} and root only)${gatewayNote} and ${paths.root} (root only), settings from ${file.path}`,
  );
  // While nothing is asked yet: the first sandbox's start then renders its context in a millisecond.
  setTimeout(() => void warmContextTemplates(), 50).unref();
  await round();
  pools.nudge(now);
  return {
    reloadProxyKeys: () => proxy.reload(),
    contextNow: now,
    close: async () => {
      clearInterval(reconcile);
      // Nobody is left to answer: the askers hear `expired` (a denial) rather than a dropped connection.
      served.approvals.close();
      // Their answers are sent once the askers' calls resume (a turn of the event loop).
      await new Promise((resolve) => setImmediate(resolve));
      await Promise.all([...servers.map((server) => server.close()), services.close(), proxy.close(), pools.close()]);
      // The expiries' lines in the sandboxes' audit logs, written before the daemon exits.
      await served.approvals.flush();
    },
  };
}

/** How long after a lifecycle call the warm pools are refilled. */
const refillAfterCallMs = 1_000;

/** Calls after which the sandboxes' services are reconciled before the answer is sent. */
const lifecycleOps = new Set<Op>(["up", "start", "stop", "reset", "down", "checkpoint", "restore"]);

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

/** The daemon's own server: its API proxy's keys can be read again (SIGHUP). */
export interface ServingDaemon extends DaemonServer {
  reloadProxyKeys(): Promise<void>;
  /** The daemon's context with the settings in force (its health rounds restart sandboxes with them). */
  contextNow(): RuntimeContext;
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
export function callServer(
  context: RuntimeContext,
  log: (line: string) => void,
  parts: CallServerParts,
): DaemonServer & { listener: Server } {
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
function handleConnection(
  socket: Socket,
  call: (op: string, args: unknown, connection: Connection) => Promise<void>,
): void {
  const connection: Connection = {
    send: (message: ServerMessage): void => void socket.write(encode(message)),
    stdin: new PassThrough(),
    relayed: new EventEmitter(),
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
          if (size.success) connection.relayed.emit("resize", size.data);
        } else if (isRelayedSignal(message.signal)) connection.relayed.emit("signal", message.signal);
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
    connection.relayed.emit("hangUp");
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
async function dispatch(
  { context, parts, log }: Serving,
  op: string,
  args: unknown,
  connection: Connection,
): Promise<void> {
  try {
    if (!isOp(op)) throw new SandboxError(`unknown operation "${op}"`, "usage");
    if (parts.caller === "gateway") requireGatewayCall(op);
    // Warnings of this request go to its client.
    const warn = (warning: string): void => connection.send({ warning });
    const requestContext = aboutTheDaemon.has(op)
      ? { ...context, warn }
      : await settingsOfRequest(context, parts, connection, warn);
    // JSON drops undefined: an operation with no result answers null.
    const result = await answer({ context: requestContext, parts, log }, op, args, connection);
    await parts.afterCall?.(op);
    // The new sandbox's proxy started (or took it) after its view was made: the answer says so.
    if (op === "up" && isUpResult(result) && result.apiProxy !== null)
      result.apiProxy = await servedByProxy(requestContext.paths, result.name);
    connection.send({ result: result ?? null });
  } catch (error) {
    const kind = error instanceof UserError ? error.kind : "general";
    const text = error instanceof Error ? error.message : String(error);
    if (!(error instanceof UserError)) log(`error in ${op}: ${error instanceof Error ? (error.stack ?? text) : text}`);
    // A user error comes with what the CLI prints for it; anything else is the daemon's bug.
    connection.send({
      error:
        error instanceof UserError
          ? { message: text, kind, report: error.report("forage-ctl") }
          : { message: text, kind, internal: true },
    });
  }
}

function isUpResult(result: unknown): result is UpResult {
  return typeof result === "object" && result !== null && "apiProxy" in result && "name" in result;
}

/** Calls about the daemon itself, answered without reading the settings. */
const aboutTheDaemon = new Set<Op>(["hello", "proxyStatus", "shutdown", "approvals", "approve", "deny", "approvalAsk"]);

/** Calls not logged: hello comes before other commands, approvals is polled by --watch. */
const unlogged = new Set<Op>(["hello", "approvals"]);

/**
 * The context a request runs in. Root's: the settings as the file now says, read as root's own
 * command would (its notes go to the client; the user's requests run with them from then on).
 * The user's and the gateway's: the settings in force (the file's, unless its last edit has
 * errors: then the last good ones, and the client hears why), on the daemon's state paths.
 */
async function settingsOfRequest(
  context: RuntimeContext,
  parts: CallServerParts,
  connection: Connection,
  warn: (warning: string) => void,
): Promise<RuntimeContext> {
  const { served } = parts;
  if (parts.caller === "root" && served.reloadSettings !== undefined) {
    const key = await fileKey(served.hello.settings);
    const { settings, notes } = await served.reloadSettings();
    for (const note of notes) connection.send({ note: formatDiagnostic(note) });
    served.followed?.adopt(key, settings);
    return { settings, paths: runtimePaths(settings.host.stateDir), warn };
  }
  if (served.followed === undefined) return { ...context, warn };
  const { settings, problem } = await served.followed.current();
  if (problem !== undefined) warn(problem);
  return { ...context, settings, warn };
}

/** Call `op`, typed from here on: its request parsed with its schema, handled by its handler. */
async function answer<K extends Op>(
  { context, parts, log }: Serving,
  op: K,
  args: unknown,
  connection: Connection,
): Promise<Result<K>> {
  const request = parseRequest(op, args);
  if (!unlogged.has(op))
    log(`${op} ${"name" in request && typeof request.name === "string" ? request.name : ""}`.trim());
  const handlers = daemonHandlers(
    { context, served: parts.served, connection, caller: parts.caller },
    parts.operations(context),
  );
  return handlers[op](request);
}

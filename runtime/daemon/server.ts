import { realpath } from "node:fs/promises";
import { EventEmitter } from "node:events";
import { createServer, type Socket } from "node:net";
import { PassThrough, Writable } from "node:stream";
import { localOperations } from "../api/local-operations.js";
import type { RelayedTerminal, SnapshotAction } from "../api/operations.js";
import type { NetworkChange } from "../sandbox/network-operations.js";
import type { TerminalSize } from "../sandbox/terminal.js";
import { lookupHostUser } from "../core/host-user.js";
import type { RuntimeContext } from "../core/context.js";
import { SandboxError, UserError } from "../core/errors.js";
import { readProxyStatus } from "../proxy/proxy-status.js";
import { listenPrivately, prepareSocketDirectory } from "./private-socket.js";
import { encode, lineReader, type DaemonHello, type ServerMessage } from "./protocol.js";
import { isOp, requestSchemas, terminalSize, type Op } from "./requests.js";
import { requirePinnedDirectory } from "../core/pinned-path.js";

/**
 * The privileged daemon: serves sandbox operations to root and the configured user over a unix
 * socket (owner the user, mode 0600; see listenPrivately). Containers are detached from it,
 * so a daemon restart loses nothing: state is re-read from the metadata on every request.
 */
export async function serveDaemon(context: RuntimeContext, path: string, log: (line: string) => void, settingsFile: string): Promise<DaemonServer> {
  const user = await lookupHostUser(context.settings.host.user);
  if (user === undefined) throw new SandboxError(`user "${context.settings.host.user}" (from ${settingsFile}) does not exist on this host: set \`user\` to an existing account`, "config");
  const served: Served = { ownerUid: user.uid, hello: { settings: settingsFile, pid: process.pid } };
  await prepareSocketDirectory(path);
  const connections = new Set<Socket>();
  const server = createServer((socket) => {
    connections.add(socket);
    socket.once("close", () => connections.delete(socket));
    void handleConnection(context, socket, served, log);
  });
  await listenPrivately(server, path, user.uid);
  log(`listening on ${path} (user ${user.uid} and root only), settings from ${settingsFile}`);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Attached terminals would hold the daemon forever: hang them up (the sandboxes stay).
        for (const socket of connections) socket.destroy();
      }),
  };
}

export interface DaemonServer {
  /** Stops listening and drops every client connection; sandboxes keep running. */
  close(): Promise<void>;
}

/** Who this daemon serves: the owner of the workspaces it mounts, and what `hello` answers. */
interface Served {
  ownerUid: number;
  hello: DaemonHello;
}

/** What a connection feeds an exec: its stdin, and the sizes of a relayed terminal. */
interface ClientInput {
  stdin: PassThrough;
  resizes: EventEmitter<{ resize: [TerminalSize]; hangUp: [] }>;
}

async function handleConnection(context: RuntimeContext, socket: Socket, served: Served, log: (line: string) => void): Promise<void> {
  const send = (message: ServerMessage): void => void socket.write(encode(message));
  const input: ClientInput = { stdin: new PassThrough(), resizes: new EventEmitter() };
  const { stdin } = input;
  let started = false;
  socket.on(
    "data",
    lineReader(
      (message) => {
        const m = message as Record<string, unknown>;
        if (!started && typeof m.op === "string") {
          started = true;
          void dispatch(context, m.op, m.args, send, input, served, log).finally(() => socket.end());
        } else if (typeof m.stdin === "string") stdin.write(Buffer.from(m.stdin, "base64"));
        else if (m.stdinEnd === true) stdin.end();
        else if (m.resize !== undefined) {
          const size = terminalSize.safeParse(m.resize);
          if (size.success) input.resizes.emit("resize", size.data);
        }
      },
      (error) => {
        send({ error: { message: error.message, kind: "usage" } });
        socket.destroy();
      },
    ),
  );
  socket.on("error", () => stdin.destroy());
  socket.on("close", () => {
    stdin.end();
    input.resizes.emit("hangUp");
  });
}

async function dispatch(context: RuntimeContext, op: string, rawArgs: unknown, send: (m: ServerMessage) => void, input: ClientInput, served: Served, log: (line: string) => void): Promise<void> {
  try {
    if (!isOp(op)) throw new SandboxError(`unknown operation "${op}"`, "usage");
    const parsed = requestSchemas[op].safeParse(rawArgs ?? {});
    if (!parsed.success) throw new SandboxError(`invalid ${op} request: ${parsed.error.issues[0]?.path.join(".") ?? ""} ${parsed.error.issues[0]?.message ?? ""}`, "usage");
    const requestContext: RuntimeContext = { ...context, warn: (message) => send({ warning: message }) };
    // `hello` comes before other commands (who is serving?): logging it would double the log.
    if (op !== "hello") log(`${op} ${"name" in parsed.data ? String(parsed.data.name) : ""}`.trim());
    // JSON drops undefined: an operation with no result answers null.
    send({ result: (await run(requestContext, op, parsed.data as Record<string, never>, send, input, served)) ?? null });
  } catch (error) {
    const kind = error instanceof UserError ? error.kind : "general";
    const message = error instanceof Error ? error.message : String(error);
    if (!(error instanceof UserError)) log(`error in ${op}: ${error instanceof Error ? (error.stack ?? message) : message}`);
    send({ error: { message, kind } });
  }
}

async function run(context: RuntimeContext, op: Op, args: Record<string, never>, send: (m: ServerMessage) => void, input: ClientInput, served: Served): Promise<unknown> {
  const operations = localOperations(context);
  const a = args as Record<string, unknown>;
  switch (op) {
    case "up":
      for (const path of [a.workspace, a.repo, ...Object.values((a.repos ?? {}) as Record<string, string>)]) {
        if (typeof path === "string") await requireOwnedWorkspace(path, served.ownerUid);
      }
      return operations.up(a as never, (step) => send({ progress: step }));
    case "down":
      return operations.down(String(a.name), Number(a.grace));
    case "list":
      return operations.list();
    case "status":
      return operations.status(String(a.name));
    case "start":
      return operations.start(String(a.name));
    case "stop":
      return operations.stop(String(a.name), Number(a.grace));
    case "reset":
      return operations.reset(String(a.name));
    case "auditLog":
      return operations.auditLog(String(a.name));
    case "logs":
      return operations.logs(String(a.name), Number(a.lines));
    case "gc":
      return operations.gc(a.force === true);
    case "exec":
      // Root in a sandbox (no user namespace) could remount the host's /usr read-write: the
      // daemon never hands that to its clients, who need not be root. `sudo forage-ctl shell` can.
      if (a.asRoot === true) throw new SandboxError("a root shell in a sandbox is for root only: run it with sudo (forage-ctl shell)", "usage");
      return operations.exec(
        String(a.name),
        a.command as string[],
        {
          stdin: a.stdin === true ? input.stdin : null,
          stdout: chunkWriter((data) => send({ stdout: data })),
          stderr: chunkWriter((data) => send({ stderr: data })),
          ...(a.terminal === undefined ? {} : { terminal: relayedTerminal(a.terminal as { size: TerminalSize; term: string }, input) }),
        },
        a.asRoot === true,
      );
    case "snapshot":
      return operations.snapshot(String(a.name), a.action as SnapshotAction);
    case "network":
      return operations.network(String(a.name), a.change as NetworkChange | null);
    case "denials":
      return operations.denials(String(a.name));
    case "proxyStatus":
      // The proxy's health and counters (it may run in this daemon or as forage-ctl proxy).
      return (await readProxyStatus(context.paths)) ?? null;
    case "hello":
      return served.hello;
    case "shutdown":
      setImmediate(() => process.kill(process.pid, "SIGTERM"));
      return "stopping";
  }
}

/**
 * A client of the daemon is root or in the user's group, not necessarily the user: it may only
 * mount a workspace the configured user owns (after resolving symlinks), never an arbitrary
 * host directory the daemon could reach as root.
 */
async function requireOwnedWorkspace(path: string, ownerUid: number): Promise<void> {
  const real = await realpath(path).catch(() => undefined);
  if (real === undefined) throw new SandboxError(`workspace ${path} is not an existing directory`, "usage");
  // Checked through a descriptor (no link on the way); up checks again the same way, and binds what it checked.
  await requirePinnedDirectory(real, [ownerUid]).catch((error: unknown) => {
    throw new SandboxError(
      `workspace ${path} is not owned by the configured user (uid ${ownerUid}) as a directory reached without links (${error instanceof Error ? error.message : String(error)}); the daemon only mounts the user's own directories`,
      "usage",
    );
  });
}

function relayedTerminal(requested: { size: TerminalSize; term: string }, input: ClientInput): RelayedTerminal {
  return { ...requested, onResize: (listener) => void input.resizes.on("resize", listener), onHangUp: (listener) => void input.resizes.once("hangUp", listener) };
}

function chunkWriter(emit: (base64: string) => void): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      emit(chunk.toString("base64"));
      done();
    },
  });
}

import { realpath } from "node:fs/promises";
import type { EventEmitter } from "node:events";
import type { PassThrough } from "node:stream";
import { Writable } from "node:stream";
import { dropUndefined } from "../../generator/lib/drop-undefined.js";
import type { DaemonHello, RequestMethods, Op } from "../api/calls.js";
import type { ExecStreams, RelayedTerminal } from "../api/exec-streams.js";
import type { Operations } from "../api/operations.js";
import type { RuntimeContext } from "../core/context.js";
import { SandboxError } from "../core/errors.js";
import { requirePinnedDirectory } from "../core/pinned-path.js";
import { readProxyStatus } from "../gates/api-proxy/proxy-status.js";
import type { LoadedSettings } from "../settings/load-settings.js";
import type { FollowedSettings } from "./followed-settings.js";
import type { TerminalSize } from "../sandbox/terminal.js";
import type { ExecRelay, ServerMessage } from "./protocol.js";
import { execRelay } from "./relay-schemas.js";
import { requireGatewayUp } from "./gateway-socket.js";
import { approvalHandlers } from "./approval-handlers.js";
import type { ApprovalQueue } from "../gates/approvals/approval-queue.js";
import type { RelayedSignal } from "../core/relayed-signals.js";
import { issueList } from "../../generator/lib/issue-list.js";

/** Who this daemon serves: the owner of the workspaces it mounts, and what `hello` answers. */
export interface Served {
  ownerUid: number;
  hello: DaemonHello;
  /** Stops the daemon once the current answer is sent (`shutdown`). */
  stop: () => void;
  /** Reads its settings file again (root's requests run with what it says now); absent: keep the daemon's. */
  reloadSettings?: () => Promise<LoadedSettings>;
  /** The settings the user's requests run with, following the file; absent: the daemon's start's. */
  followed?: FollowedSettings;
  /** The one approvals queue (issue 16): root's host processes ask, root and the user answer. */
  approvals: ApprovalQueue;
}

/**
 * Who is asking, as the socket the request came on says: `user` (the configured user's socket,
 * which root can reach too), `gateway` (the SSH gateway account's, held to the user's limits and
 * a few calls: gateway-socket.ts) or `root` (root's own socket, which nobody else can connect to).
 */
export type Caller = "user" | "gateway" | "root";

/** One request's side of the daemon: its context, who it serves, the connection and its caller. */
export interface RequestScope {
  context: RuntimeContext;
  served: Served;
  connection: Connection;
  caller: Caller;
}

/** One client's connection, as the calls it makes see it. */
export interface Connection {
  send(message: ServerMessage): void;
  /** What the client sends an exec's command: its stdin. */
  stdin: PassThrough;
  /** The sizes of a relayed terminal, the signals the client got, and the client going away. */
  relayed: EventEmitter<{ resize: [TerminalSize]; signal: [RelayedSignal]; hangUp: [] }>;
  /** The request's `streams` field as the client sent it (exec only; parsed there). */
  relay: unknown;
}

/**
 * How the daemon answers each call of the table: the in-process operations, with what only the
 * daemon does around them. On the user's socket the client may be the configured user, so `up`
 * mounts only the user's own directories and `exec` is never root in a sandbox; on root's socket
 * both are as root's own command. `exec` relays its streams over the connection; `hello`,
 * `proxyStatus` and `shutdown` are about the daemon itself, and the approvals queue's calls
 * (approval-handlers.ts) about the queue it holds.
 */
export function daemonHandlers(
  { context, served, connection, caller }: RequestScope,
  operations: Operations,
): RequestMethods<Op> {
  return {
    ...operations,
    async up(request) {
      if (caller === "gateway") await requireGatewayUp(request, context.settings.host.user);
      for (const path of [request.workspace, request.repo, ...Object.values(request.repos ?? {})]) {
        if (path !== undefined && caller !== "root") await requireOwnedWorkspace(path, served.ownerUid);
      }
      return operations.up(request, (step) => connection.send({ progress: step }));
    },
    checkpoint: (request) => operations.checkpoint(request, (step) => connection.send({ progress: step })),
    async exec(request) {
      // Root in a sandbox (no user namespace) could remount the host's /usr read-write: the
      // daemon never hands that to its user's socket, whose clients need not be root.
      if (request.asRoot && caller !== "root")
        throw new SandboxError(
          "a root shell in a sandbox is for root only: run it with sudo (forage-ctl shell)",
          "usage",
        );
      return operations.exec(request, relayedStreams(parseRelay(connection.relay), connection));
    },
    // The proxy's health and counters (it may run in this daemon or as forage-ctl proxy).
    proxyStatus: async () => (await readProxyStatus(context.paths)) ?? null,
    hello: async () => served.hello,
    ...approvalHandlers(served.approvals, caller),
    async shutdown() {
      served.stop();
      return "stopping";
    },
  };
}

/**
 * A client on the user's socket is the user or root, and need not be root: it may only
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

function parseRelay(raw: unknown): ExecRelay {
  const parsed = execRelay.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  throw new SandboxError(
    `invalid exec request: ${issueList(parsed.error.issues.map((issue) => ({ ...issue, path: ["streams", ...issue.path] })))}`,
    "usage",
  );
}

/** The exec's streams over the connection: stdin if the client sends it, output as events. */
function relayedStreams(relay: ExecRelay, connection: Connection): ExecStreams {
  return dropUndefined({
    stdin: relay.stdin ? connection.stdin : null,
    stdout: chunkWriter((data) => connection.send({ stdout: data })),
    stderr: chunkWriter((data) => connection.send({ stderr: data })),
    terminal: relay.terminal === undefined ? undefined : relayedTerminal(relay.terminal, connection),
    onSignal: (listener: (signal: RelayedSignal) => void) => void connection.relayed.on("signal", listener),
  });
}

function relayedTerminal(requested: { size: TerminalSize; term: string }, connection: Connection): RelayedTerminal {
  return {
    ...requested,
    onResize: (listener) => void connection.relayed.on("resize", listener),
    onHangUp: (listener) => void connection.relayed.once("hangUp", listener),
  };
}

function chunkWriter(emit: (base64: string) => void): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      emit(chunk.toString("base64"));
      done();
    },
  });
}

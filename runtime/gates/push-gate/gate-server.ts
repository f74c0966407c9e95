import { spawn } from "node:child_process";
import { rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { serveControlChannel } from "./control-channel.js";
import type { OutboxLayout } from "./outbox.js";
import type { GateTarget } from "./push-decision.js";
import { PushSession } from "./push-session.js";
import { userGitEnvironment } from "./user-git.js";
import { systemProgram } from "../../core/user-command-path.js";
import { listenPrivately } from "../../core/private-socket.js";

/** The header a relay sends first is at most this long ("git-receive-pack REMOTE\n"). */
const maxHeader = 256;

/** A running gate: close() stops listening and ends the pushes under way. */
export interface RunningGate {
  close(): Promise<void>;
}

/** The gate's target for a remote the sandbox names, as the user's config says now (undefined: none such). */
export type FindTarget = (remote: string) => Promise<GateTarget | undefined>;

/**
 * Listens on the gate's socket (bound into the sandbox) for pushes relayed by forage-git-relay:
 * for each connection, reads "git-receive-pack REMOTE", and runs git-receive-pack on the outbox
 * as the user, its protocol on the connection. Its hooks report over fd 3 (control-channel.ts)
 * and a PushSession answers them for that remote's target. The sandbox chooses nothing but the
 * remote's name, which `findTarget` must know. The socket is `agentUid`'s, 0600.
 */
export async function listenForPushes(
  layout: OutboxLayout,
  findTarget: FindTarget,
  agentUid: number,
): Promise<RunningGate> {
  await rm(layout.socket, { force: true });
  const connections = new Set<Socket>();
  // Half-open: the relay ends its side once git has sent the pack, and still reads the report.
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    connections.add(socket);
    socket.once("close", () => connections.delete(socket));
    socket.on("error", () => socket.destroy());
    readHeader(socket, (header, rest) => void serve(socket, header, rest, layout, findTarget));
  });
  // The sandbox's agent (its uid) connects, and nobody else but root: what it may do there is only
  // push into the outbox and ask in the sandbox's name.
  await listenPrivately(server, layout.socket, agentUid);
  return {
    close: async () => {
      for (const socket of connections) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function readHeader(socket: Socket, then: (header: string, rest: Buffer) => void): void {
  let buffered = Buffer.alloc(0);
  const onData = (chunk: Buffer): void => {
    buffered = Buffer.concat([buffered, chunk]);
    const end = buffered.indexOf(10);
    if (end < 0 && buffered.length <= maxHeader) return;
    socket.off("data", onData);
    socket.pause();
    if (end < 0) return void socket.destroy();
    then(buffered.subarray(0, end).toString("latin1"), buffered.subarray(end + 1));
  };
  socket.on("data", onData);
}

async function serve(
  socket: Socket,
  header: string,
  rest: Buffer,
  layout: OutboxLayout,
  findTarget: FindTarget,
): Promise<void> {
  const [service, remote, ...extra] = header.split(" ");
  const target = remote === undefined || extra.length > 0 ? undefined : await findTarget(remote).catch(() => undefined);
  // root starts setpriv, found in the system's directories only; git is then found as the user.
  const setpriv = await systemProgram("setpriv").catch(() => undefined);
  if (socket.destroyed) return;
  if (setpriv === undefined)
    return void socket.end(errPacket("forage push gate: setpriv is not installed on the host"));
  if (service !== "git-receive-pack" || target === undefined) {
    // git shows an ERR packet to the pusher as "fatal: remote error: ...".
    return void socket.end(
      errPacket(
        target === undefined
          ? `forage push gate: no such remote here: ${JSON.stringify(remote ?? "")}`
          : "forage push gate: only pushes go through the gate",
      ),
    );
  }
  const { user } = target;
  const child = spawn(
    setpriv,
    [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--init-groups", "--", "git", "receive-pack", layout.gitDir],
    {
      stdio: ["pipe", "pipe", "ignore", "pipe"],
      env: userGitEnvironment(user),
      cwd: "/",
    },
  );
  const [stdin, stdout, , control] = child.stdio as unknown as [
    NodeJS.WritableStream,
    NodeJS.ReadableStream,
    null,
    Socket,
  ];
  stdin.on("error", () => undefined);
  stdin.write(rest);
  socket.pipe(stdin);
  stdout.pipe(socket);
  socket.resume();
  child.once("error", () => socket.destroy());
  socket.once("close", () => child.kill("SIGKILL"));
  child.once("close", () => socket.end());
  const session = new PushSession(layout, target);
  serveControlChannel(control, (message) => session.answer(message));
}

/** A pkt-line "ERR" packet. */
function errPacket(message: string): string {
  const body = `ERR ${message.replace(/[^\x20-\x7e]/g, "?")}\n`;
  return `${(body.length + 4).toString(16).padStart(4, "0")}${body}`;
}

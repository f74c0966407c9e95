import { spawn } from "node:child_process";
import { chmod, rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { decidePush, type GateTarget, type GateVerdict } from "./push-decision.js";
import type { OutboxLayout } from "./outbox.js";
import { parseHookReport } from "./ref-update.js";

/** The header a relay sends first is at most this long ("git-receive-pack REMOTE\n"). */
const maxHeader = 256;
/** The hook's report is at most this long (its own limit is 1 MiB; 32 updates need far less). */
const maxReport = 64 * 1024;

/** A running gate: close() stops listening and ends the pushes under way. */
export interface RunningGate {
  close(): Promise<void>;
}

/**
 * Listens on the gate's socket (bound into the sandbox) for pushes relayed by forage-git-relay:
 * for each connection, reads "git-receive-pack REMOTE", and runs git-receive-pack on the outbox
 * as the user, its protocol on the connection. Its pre-receive hook reports the ref updates over
 * fd 3, and is answered with the verdict of `decidePush` for that remote's target. The sandbox
 * chooses nothing but the remote's name, which must be one of `targets`.
 */
export async function listenForPushes(layout: OutboxLayout, targets: ReadonlyMap<string, GateTarget>): Promise<RunningGate> {
  await rm(layout.socket, { force: true });
  const connections = new Set<Socket>();
  // Half-open: the relay ends its side once git has sent the pack, and still reads the report.
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    connections.add(socket);
    socket.once("close", () => connections.delete(socket));
    socket.on("error", () => socket.destroy());
    readHeader(socket, (header, rest) => serve(socket, header, rest, layout, targets));
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(layout.socket, resolve));
  // The sandbox's agent connects; what it may do there is only to push into the outbox.
  await chmod(layout.socket, 0o666);
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

function serve(socket: Socket, header: string, rest: Buffer, layout: OutboxLayout, targets: ReadonlyMap<string, GateTarget>): void {
  const [service, remote, ...extra] = header.split(" ");
  const target = remote === undefined ? undefined : targets.get(remote);
  if (service !== "git-receive-pack" || target === undefined || extra.length > 0) {
    // git shows an ERR packet to the pusher as "fatal: remote error: ...".
    return void socket.end(errPacket(target === undefined ? `forage push gate: no such remote here: ${JSON.stringify(remote ?? "")}` : "forage push gate: only pushes go through the gate"));
  }
  const { user } = target;
  const child = spawn("setpriv", [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--init-groups", "--", "git", "receive-pack", layout.gitDir], {
    stdio: ["pipe", "pipe", "ignore", "pipe"],
    env: { HOME: user.home, USER: user.name, PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8", GIT_TERMINAL_PROMPT: "0" },
    cwd: "/",
  });
  const [stdin, stdout, , control] = child.stdio as unknown as [NodeJS.WritableStream, NodeJS.ReadableStream, null, Socket];
  stdin.on("error", () => undefined);
  stdin.write(rest);
  socket.pipe(stdin);
  stdout.pipe(socket);
  socket.resume();
  socket.once("close", () => child.kill("SIGKILL"));
  child.once("close", () => socket.end());
  answerHook(control, layout, target);
}

/** Reads the hook's report from the control channel and answers with a verdict byte and lines. */
function answerHook(control: Socket, layout: OutboxLayout, target: GateTarget): void {
  const chunks: Buffer[] = [];
  let size = 0;
  control.on("error", () => undefined);
  const onData = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > maxReport) return void control.end(encode({ accepted: false, lines: ["error: forage push gate: the push names too many refs"] }));
    chunks.push(chunk);
    // The hook ends its report with a NUL (see native/forage-git-relay.c).
    if (chunk.indexOf(0) < 0) return;
    control.off("data", onData);
    const report = Buffer.concat(chunks);
    void verdictFor(report.subarray(0, report.indexOf(0)).toString("latin1"), layout, target).then((verdict) => control.end(encode(verdict)));
  };
  control.on("data", onData);
}

async function verdictFor(report: string, layout: OutboxLayout, target: GateTarget): Promise<GateVerdict> {
  try {
    const parsed = parseHookReport(report);
    // The quarantine is git-receive-pack's own directory in the outbox (it names it from inside
    // the repository, "./objects/…"): nothing else is read. A push without new objects (a
    // deletion) has none: then the outbox's own objects are read.
    if (parsed.quarantine === "") return await decidePush(target, { gitDir: layout.gitDir, quarantine: `${layout.gitDir}/objects` }, parsed.updates);
    const quarantine = parsed.quarantine.replace(`${layout.gitDir}/./objects/`, `${layout.gitDir}/objects/`);
    const name = quarantine.slice(`${layout.gitDir}/objects/`.length);
    if (!quarantine.startsWith(`${layout.gitDir}/objects/`) || !/^tmp_objdir-incoming-[A-Za-z0-9]+$/.test(name)) throw new Error("unexpected quarantine directory");
    const { updates } = parsed;
    return await decidePush(target, { gitDir: layout.gitDir, quarantine }, updates);
  } catch (error) {
    return { accepted: false, lines: [`error: forage push gate: ${(error as Error).message}`] };
  }
}

function encode(verdict: GateVerdict): string {
  return `${verdict.accepted ? "0" : "1"}${verdict.lines.map((line) => `${line.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, "?")}\n`).join("")}`;
}

/** A pkt-line "ERR" packet. */
function errPacket(message: string): string {
  const body = `ERR ${message.replace(/[^\x20-\x7e]/g, "?")}\n`;
  return `${(body.length + 4).toString(16).padStart(4, "0")}${body}`;
}

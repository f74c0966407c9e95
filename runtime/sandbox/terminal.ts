import { spawn, type ChildProcess } from "node:child_process";
import type { RelayedSignal } from "../core/relayed-signals.js";
import type { Readable, Writable } from "node:stream";

/** A terminal's size in character cells. */
export interface TerminalSize {
  rows: number;
  cols: number;
}

/** A command running on its own pseudo-terminal, driven through pipes. */
export interface TerminalProcess {
  /** What the command writes to its terminal (one stream: a terminal has no separate stderr). */
  output: Readable;
  /** Types keystrokes into the command's terminal. */
  type(keys: Buffer): void;
  /** Sets the terminal's size; the command gets SIGWINCH. */
  resize(size: TerminalSize): void;
  /** Ends the session (the client went away): the terminal is hung up, the command terminated. */
  hangUp(): void;
  /** Passes a signal the caller got on to the command (through forage-enter, which passes it on inside). */
  signal(signal: RelayedSignal): void;
  /** The command's exit status. */
  exit: Promise<number>;
}

/** Turns a command into the host argv that runs it in the sandbox on a pseudo-terminal of `size` made there. */
export type EnterOnTerminal = (command: string[], size: TerminalSize) => Promise<string[]>;

/** native/terminal.c's frames: a type byte, a big-endian 16-bit length, the payload. */
const dataFrameType = 0x64; // 'd'
const sizeFrameType = 0x77; // 'w'
const largestPayload = 0xffff;

function frame(type: number, payload: Buffer): Buffer {
  const header = Buffer.from([type, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([header, payload]);
}

/** Keystrokes as data frames (a long paste is cut into several). */
export function keysFrames(keys: Buffer): Buffer {
  const frames: Buffer[] = [];
  for (let at = 0; at < keys.length; at += largestPayload)
    frames.push(frame(dataFrameType, keys.subarray(at, at + largestPayload)));
  return Buffer.concat(frames);
}

/** A window size as a size frame (each dimension clamped to 1..1000, as forage-enter takes them). */
export function sizeFrame(size: TerminalSize): Buffer {
  const clamp = (cells: number): number => Math.max(1, Math.min(1000, Math.trunc(cells)));
  const payload = Buffer.alloc(4);
  payload.writeUInt16BE(clamp(size.rows), 0);
  payload.writeUInt16BE(clamp(size.cols), 2);
  return frame(sizeFrameType, payload);
}

/**
 * Starts `command` in a sandbox on a new pseudo-terminal that forage-enter opens on the sandbox's
 * own devpts (`--terminal`, native/terminal.c): the command leads a session of its own with that
 * terminal as its controlling terminal, and forage-enter relays it over pipes. Neither a daemon
 * client's terminal nor the terminal forage-ctl itself runs on is ever handed in: a process
 * holding a host terminal could type into it (TIOCSTI) or run what a tmux client is told to.
 */
export async function startOnTerminal(
  enter: EnterOnTerminal,
  command: string[],
  size: TerminalSize,
): Promise<TerminalProcess> {
  const [program, ...args] = await enter(command, size);
  // Its own process group: a hang-up's SIGTERM reaches forage-enter, which passes it on inside.
  const child = spawn(program ?? "forage-enter", args, { stdio: ["pipe", "pipe", "ignore"], detached: true });
  const exit = new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => resolve(code ?? (signal === "SIGKILL" ? 137 : 129)));
  });
  const input = child.stdin as Writable;
  input.on("error", () => undefined);
  const send = (bytes: Buffer): void => {
    if (!input.writableEnded && !input.destroyed) input.write(bytes);
  };
  return {
    output: child.stdout as Readable,
    type: (keys) => send(keysFrames(keys)),
    resize: (next) => send(sizeFrame(next)),
    hangUp() {
      // The end of the relay's input closes the terminal (SIGHUP to the command's session); a
      // command that ignores hang-ups still gets SIGTERM.
      input.end();
      signalGroup(child, "SIGTERM");
    },
    signal: (signal) => signalGroup(child, signal),
    exit,
  };
}

/** Sends `signal` to the process group `child` leads (spawned detached), unless it has ended. */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

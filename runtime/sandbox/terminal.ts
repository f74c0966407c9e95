import { spawn } from "node:child_process";
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
  /** Keystrokes for the command's terminal. */
  input: Writable;
  /** Sets the terminal's size; the command gets SIGWINCH. */
  resize(size: TerminalSize): Promise<void>;
  /** Ends the session (the client went away): the command is terminated, the terminal closed. */
  hangUp(): void;
  /** The command's exit status. */
  exit: Promise<number>;
}

/**
 * Runs inside the sandbox, in `script`'s pseudo-terminal: reads the size and the command's argv
 * NUL-separated from fd 3, sets the size, reports the terminal's path on fd 4 (for later
 * resizes), and becomes the command. A constant: the argv travels as data, never as shell text.
 */
const onTerminal = 'readarray -d "" -t argv <&3 && exec 3<&- && stty rows "${argv[0]}" cols "${argv[1]}" && tty >&4 && exec 4>&- && exec "${argv[@]:2}"';

/** Turns a command into the host argv that runs it in the sandbox (as the right user). */
export type EnterSandbox = (command: string[]) => Promise<string[]>;

/**
 * Starts `command` in a sandbox on a new pseudo-terminal that util-linux `script` opens inside it
 * (so `tty` and programs that look up their terminal's name work). This is how the daemon gives
 * a client without root a real terminal: the client relays keystrokes and window size.
 */
export async function startOnTerminal(enter: EnterSandbox, command: string[], size: TerminalSize): Promise<TerminalProcess> {
  const [program, ...args] = await enter(["script", "--quiet", "--return", "--flush", "--command", onTerminal, "/dev/null"]);
  // Its own process group: the end of a session reaches nsenter's forked child and script too.
  const child = spawn(program ?? "nsenter", args, { stdio: ["pipe", "pipe", "ignore", "pipe", "pipe"], detached: true });
  const [, , , argvPipe, ttyPipe] = child.stdio as unknown as [Writable, Readable, null, Writable, Readable];
  argvPipe.on("error", () => undefined);
  argvPipe.end([String(size.rows), String(size.cols), ...command].map((arg) => `${arg}\0`).join(""));
  const ttyPath = firstLine(ttyPipe).then((line) => (/^\/dev\/pts\/\d+$/.test(line ?? "") ? line : undefined));
  const exit = new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => resolve(code ?? (signal === "SIGKILL" ? 137 : 129)));
  });
  child.stdin?.on("error", () => undefined);
  // One resize at a time, and only the latest size: a client cannot make the host fork at will.
  let pending: TerminalSize | undefined;
  let resizing = false;
  const applyResizes = async (): Promise<void> => {
    const path = await ttyPath;
    while (pending !== undefined && path !== undefined && child.exitCode === null) {
      const next = pending;
      pending = undefined;
      const [resizer, ...resizeArgs] = await enter(["stty", "-F", path, "rows", String(next.rows), "cols", String(next.cols)]);
      await new Promise<void>((resolve) => {
        spawn(resizer ?? "nsenter", resizeArgs, { stdio: "ignore" })
          .once("close", () => resolve())
          .once("error", () => resolve());
      });
    }
  };
  return {
    output: child.stdout as Readable,
    input: child.stdin as Writable,
    async resize(next) {
      pending = next;
      if (resizing) return;
      resizing = true;
      await applyResizes().finally(() => (resizing = false));
    },
    hangUp() {
      child.stdin?.end();
      if (child.exitCode !== null || child.pid === undefined) return;
      try {
        // script(1) blocks SIGHUP but passes SIGTERM on to the command it runs.
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
    },
    exit,
  };
}

/** The first line a stream carries (the writer may keep it open afterwards), or undefined. */
function firstLine(stream: Readable): Promise<string | undefined> {
  return new Promise((resolve) => {
    let text = "";
    stream.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const newline = text.indexOf("\n");
      if (newline !== -1) resolve(text.slice(0, newline));
    });
    stream.on("error", () => resolve(undefined));
    stream.on("close", () => resolve(undefined));
  });
}

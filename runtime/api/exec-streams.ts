import type { RelayedSignal } from "../core/relayed-signals.js";
import type { TerminalSize } from "../sandbox/terminal.js";

/**
 * Streams of a command run in a sandbox: forage-ctl's own, or a daemon connection's. They are
 * relayed, never handed in: the command gets pipes, or a pseudo-terminal made inside the sandbox.
 */
export interface ExecStreams {
  stdin: NodeJS.ReadableStream | null;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /**
   * The caller relays a terminal (its own, or a daemon client's): the command runs on a new
   * pseudo-terminal of this size and type, resized on request; stdout carries all its output.
   */
  terminal?: RelayedTerminal;
  /** The caller relays the signals it gets (relayedSignals): each goes on to the command. */
  onSignal?(listener: (signal: RelayedSignal) => void): void;
}

/** A terminal the caller relays: its size and TERM now, and its resizes and hang-up later. */
export interface RelayedTerminal {
  size: TerminalSize;
  /** The client's TERM (validated before use). */
  term: string;
  onResize(listener: (size: TerminalSize) => void): void;
  /** Called when the client goes away: the terminal is hung up. */
  onHangUp?(listener: () => void): void;
}

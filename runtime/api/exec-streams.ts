import type { TerminalSize } from "../sandbox/terminal.js";

/** Streams of a command run in a sandbox: the caller's terminal, or a daemon connection. */
export interface ExecStreams {
  stdin: NodeJS.ReadableStream | null;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** The streams are this process's own terminal: hand it to the command as is (TTY kept). */
  inheritTerminal?: boolean;
  /**
   * The caller relays a terminal from elsewhere (a daemon client): the command runs on a new
   * pseudo-terminal of this size and type, resized on request; stdout carries all its output.
   */
  terminal?: RelayedTerminal;
}

/** A terminal a daemon client relays: its size and TERM now, and its resizes and hang-up later. */
export interface RelayedTerminal {
  size: TerminalSize;
  /** The client's TERM (validated before use). */
  term: string;
  onResize(listener: (size: TerminalSize) => void): void;
  /** Called when the client goes away: the terminal is hung up. */
  onHangUp?(listener: () => void): void;
}

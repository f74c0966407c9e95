/**
 * The daemon's wire protocol: one JSON object per line over a unix socket. A client sends one
 * request (a call of the table in api/calls.ts); the daemon answers with events (progress,
 * warnings, exec output) and one final `result` or `error`. During exec the client may send
 * `stdin` chunks, `stdinEnd`, `resize` (relayed terminals) and `signal` (what it got: passed on).
 *
 * @example {"op":"down","args":{"name":"fix-42","grace":10}}
 */

import type { RelayedSignal } from "../core/relayed-signals.js";
export interface RequestMessage {
  op: string;
  /** The call's request, exactly as its schema describes it. */
  args: object;
  /** exec only: what the client relays besides the request, an ExecRelay (checked by the daemon). */
  streams?: object;
}

/**
 * What the daemon sends: events, then one `result` or `error`: a user error with its UserErrorKind
 * and the report the CLI prints for it (a config's problems, say), or `internal`, a bug.
 * `note` is a line for the client's stderr as it is (a config's notes, when root's request
 * loaded the settings afresh).
 */
export type ServerMessage =
  | { progress: string }
  | { warning: string }
  | { note: string }
  | { stdout: string }
  | { stderr: string }
  | { result: unknown }
  | { error: { message: string; kind: string; report?: string; internal?: true } };

/** What a client sends: its request, then (exec) stdin, its end, terminal resizes and the signals it got. */
export type ClientMessage =
  | RequestMessage
  | { stdin: string }
  | { stdinEnd: true }
  | { resize: { rows: number; cols: number } }
  | { signal: RelayedSignal };

/** What an exec's client relays besides its request (checked by the daemon: relay-schemas.ts). */
export interface ExecRelay {
  /** The client sends stdin chunks (else the command's stdin is empty). */
  stdin: boolean;
  /** Run the command on a pseudo-terminal of this size and type. */
  terminal?: { size: { rows: number; cols: number }; term: string };
}

export { lineReader, maxLineBytes } from "../core/json-lines.js";

/** The fields of a parsed line (or of an object in it); anything but a JSON object has none. */
export function fieldsOf(message: unknown): Record<string, unknown> {
  return typeof message === "object" && message !== null && !Array.isArray(message)
    ? Object.fromEntries(Object.entries(message))
    : {};
}

/** One protocol line. */
export function encode(message: ServerMessage | ClientMessage): string {
  return `${JSON.stringify(message)}\n`;
}

export { rootSocketPath, socketPath } from "../core/daemon-sockets.js";

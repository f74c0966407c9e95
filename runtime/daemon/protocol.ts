import { z } from "zod";

/**
 * The daemon's wire protocol: one JSON object per line over a unix socket. A client sends one
 * request (a call of the table in api/calls.ts); the daemon answers with events (progress,
 * warnings, exec output) and one final `result` or `error`. During exec the client may send
 * `stdin` chunks, `stdinEnd`, and `resize` (relayed terminals).
 *
 * @example {"op":"down","args":{"name":"fix-42","grace":10}}
 */
export interface RequestMessage {
  op: string;
  /** The call's request, exactly as its schema describes it. */
  args: object;
  /** exec only: what the client relays besides the request, an ExecRelay (checked by the daemon). */
  streams?: object;
}

/** What the daemon sends: events, then one `result` or `error` (with the UserErrorKind). */
export type ServerMessage = { progress: string } | { warning: string } | { stdout: string } | { stderr: string } | { result: unknown } | { error: { message: string; kind: string } };

/** What a client sends: its request, then (exec) stdin, its end, and terminal resizes. */
export type ClientMessage = RequestMessage | { stdin: string } | { stdinEnd: true } | { resize: { rows: number; cols: number } };

/** A relayed terminal's size; anything beyond a few thousand cells is not a screen. */
export const terminalSize = z.strictObject({ rows: z.number().int().min(1).max(1000), cols: z.number().int().min(1).max(1000) });

/**
 * What an exec's client relays: whether it sends stdin, and the terminal (size and TERM) the
 * command should get, which is then resized with `resize` messages.
 */
export const execRelay = z.strictObject({
  stdin: z.boolean().describe("the client sends stdin chunks (else the command's stdin is empty)"),
  terminal: z
    .strictObject({ size: terminalSize, term: z.string().regex(/^[A-Za-z0-9._+-]{1,64}$/) })
    .exactOptional()
    .describe("run the command on a pseudo-terminal of this size and type"),
});
/** @see execRelay */
export type ExecRelay = z.infer<typeof execRelay>;

/** Largest line either side accepts: requests are small; output is chunked well below this. */
export const maxLineBytes = 1024 * 1024;

/** Splits a byte stream into JSON lines, calling `onMessage` for each parsed object. */
export function lineReader(onMessage: (message: unknown) => void, onError: (error: Error) => void): (chunk: Buffer) => void {
  let buffered = "";
  return (chunk) => {
    buffered += chunk.toString("utf8");
    if (buffered.length > maxLineBytes) {
      onError(new Error(`protocol line longer than ${maxLineBytes} bytes`));
      buffered = "";
      return;
    }
    let newline = buffered.indexOf("\n");
    while (newline !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.trim() !== "") {
        try {
          onMessage(JSON.parse(line) as unknown);
        } catch {
          onError(new Error("protocol line is not JSON"));
        }
      }
      newline = buffered.indexOf("\n");
    }
  };
}

/** The fields of a parsed line (or of an object in it); anything but a JSON object has none. */
export function fieldsOf(message: unknown): Record<string, unknown> {
  return typeof message === "object" && message !== null && !Array.isArray(message) ? Object.fromEntries(Object.entries(message)) : {};
}

/** One protocol line. */
export function encode(message: ServerMessage | ClientMessage): string {
  return `${JSON.stringify(message)}\n`;
}

/** Where the daemon listens: FORAGE_RUN_DIR (default /run/forage) / daemon.sock. */
export function socketPath(env: NodeJS.ProcessEnv = process.env): string {
  return `${env.FORAGE_RUN_DIR ?? "/run/forage"}/daemon.sock`;
}

/**
 * The daemon's wire protocol: one JSON object per line over a unix socket. A client sends one
 * request; the daemon answers with events (progress, warnings, exec output) and one final
 * `result` or `error`. During exec the client may send `stdin` chunks, `stdinEnd`, and `resize` (relayed terminals).
 */
export interface Request {
  op: string;
  args: Record<string, unknown>;
}

export type ServerMessage = { progress: string } | { warning: string } | { stdout: string } | { stderr: string } | { result: unknown } | { error: { message: string; kind: string } };

/** The daemon's answer to `hello`: the settings file it serves (absolute), and its pid. */
export interface DaemonHello {
  settings: string;
  pid: number;
}

export type ClientMessage = Request | { stdin: string } | { stdinEnd: true } | { resize: { rows: number; cols: number } };

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

export function encode(message: ServerMessage | ClientMessage): string {
  return `${JSON.stringify(message)}\n`;
}

/** Where the daemon listens: FORAGE_RUN_DIR (default /run/forage) / daemon.sock. */
export function socketPath(env: NodeJS.ProcessEnv = process.env): string {
  return `${env.FORAGE_RUN_DIR ?? "/run/forage"}/daemon.sock`;
}

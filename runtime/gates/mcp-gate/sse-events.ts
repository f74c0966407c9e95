/** One server-sent event as the gate relays it: its fields, `data` joined by line feeds. */
export interface SseEvent {
  id?: string;
  event?: string;
  retry?: string;
  data: string;
}

/**
 * Reads an event stream as it arrives (the HTML Living Standard's event stream grammar: lines end
 * in CRLF, LF or CR; a blank line ends an event; `:` lines are comments), holding at most
 * `maxEventBytes` of one event: a server cannot make the gate buffer without bound.
 */
export class SseReader {
  private line = "";
  private pending: SseEvent = { data: "" };
  private dataLines: string[] = [];
  private held = 0;
  private lastWasCr = false;

  constructor(private readonly maxEventBytes: number) {}

  /** The events `chunk` completes; throws when one grows past the limit. */
  push(chunk: string): SseEvent[] {
    const done: SseEvent[] = [];
    for (let at = 0; at < chunk.length; at += 1) {
      const char = chunk[at] as string;
      this.held += 1;
      if (char === "\n" && this.lastWasCr) {
        this.lastWasCr = false;
        continue;
      }
      this.lastWasCr = char === "\r";
      if (char !== "\n" && char !== "\r") {
        this.line += char;
        continue;
      }
      const event = this.endLine();
      if (event !== undefined) done.push(event);
    }
    if (this.held > this.maxEventBytes)
      throw new Error(`an event of the server's stream is over ${this.maxEventBytes} bytes`);
    return done;
  }

  private endLine(): SseEvent | undefined {
    const line = this.line;
    this.line = "";
    if (line === "") return this.endEvent();
    if (line.startsWith(":")) return undefined;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "data") this.dataLines.push(value);
    else if (field === "id" || field === "event" || field === "retry") this.pending[field] = value;
    return undefined;
  }

  private endEvent(): SseEvent | undefined {
    const event = { ...this.pending, data: this.dataLines.join("\n") };
    const empty = this.dataLines.length === 0 && event.id === undefined && event.retry === undefined;
    this.pending = { data: "" };
    this.dataLines = [];
    this.held = 0;
    return empty ? undefined : event;
  }
}

/** An event as stream text: each data line its own `data:` field, so a line feed in the data stays one. */
export function formatSseEvent(event: SseEvent): string {
  const fields = [
    ...(event.event === undefined ? [] : [`event: ${event.event}`]),
    ...(event.id === undefined ? [] : [`id: ${event.id}`]),
    ...(event.retry === undefined ? [] : [`retry: ${event.retry}`]),
    ...(event.data === "" && event.id !== undefined ? [] : event.data.split("\n").map((line) => `data: ${line}`)),
  ];
  return `${fields.join("\n")}\n\n`;
}

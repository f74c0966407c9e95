import { Transform, type TransformCallback } from "node:stream";
import { decodeEscapes, escapePattern, originOf, type Decoded } from "./escape-decoder.js";
import { keyForms } from "./key-forms.js";

/** What a redaction pass changed. */
export interface Redacted {
  text: string;
  count: number;
}

/** A body redacted chunk by chunk (KeyRedactor.chunks). */
export interface ChunkRedactor {
  push(chunk: Buffer): Buffer;
  end(): Buffer;
}

/** One pass over a stream's text: also how much of its end waits for the next chunk. */
interface Scanned extends Redacted {
  held: number;
}

/**
 * Replaces every form of the given keys (`keyForms`: as sent, upper-cased, escaped in part or in
 * whole, hex, base64) in text (latin1: one character per byte) with a marker of the same length,
 * so a body's Content-Length stays true and nothing needs buffering. The text is searched with its
 * escapes decoded (`decodeEscapes`), and a form's whole escaped spelling is masked.
 */
export class KeyRedactor {
  /** Lower-cased, as `decodeEscapes` leaves text. */
  private readonly forms: string[];
  /** The escapes of the characters the forms hold: only those need decoding. */
  private readonly escapes: RegExp;

  constructor(keys: Iterable<string>) {
    this.forms = [...new Set([...keys].flatMap(keyForms))];
    this.escapes = escapePattern(new Set(this.forms.join("")));
  }

  get active(): boolean {
    return this.forms.length > 0;
  }

  redact(text: string): Redacted {
    const { text: out, count } = this.scan(text, false);
    return { text: out, count };
  }

  /**
   * The longest end of `text` that could begin a key form (or an escape cut short): held back
   * until the next chunk, so a key split across chunks is still found in any of its forms, and
   * nothing else (an SSE event) is ever delayed.
   */
  heldBack(text: string): number {
    return this.scan(text, true).held;
  }

  /**
   * Redacts a body chunk by chunk, across chunk boundaries: `push` gives what may go out of each
   * chunk (the end of it that could begin a form waits for the next), `end` what was held back.
   * `found` hears each count. An inactive redactor passes every chunk as it is.
   */
  chunks(found: (count: number) => void): ChunkRedactor {
    if (!this.active) return { push: (chunk) => chunk, end: () => Buffer.alloc(0) };
    let carry = "";
    return {
      push: (chunk) => {
        const { text, count, held } = this.scan(carry + chunk.toString("latin1"), true);
        if (count > 0) found(count);
        carry = text.slice(text.length - held);
        return Buffer.from(text.slice(0, text.length - held), "latin1");
      },
      // The end: an escape held back as maybe cut short (`&#121` without its `;`) is whole now.
      end: () => {
        const { text, count } = this.scan(carry, false);
        if (count > 0) found(count);
        return Buffer.from(text, "latin1");
      },
    };
  }

  /** A stream that redacts what passes through it (`chunks` as a Transform), for a body read through decoders. */
  stream(found: (count: number) => void): Transform {
    const redactor = this.chunks(found);
    return new Transform({
      transform: (chunk: Buffer, _encoding, done: TransformCallback) => done(null, redactor.push(chunk)),
      flush: (done: TransformCallback) => done(null, redactor.end()),
    });
  }

  private scan(text: string, streaming: boolean): Scanned {
    if (this.forms.length === 0) return { text, count: 0, held: 0 };
    const decoded = decodeEscapes(text, this.escapes, streaming);
    const spans = this.spans(decoded.text);
    let out = text;
    if (spans.length > 0) {
      const parts: string[] = [];
      let at = 0;
      for (const [from, to] of spans) {
        const start = originOf(decoded, from);
        const end = originOf(decoded, to);
        parts.push(text.slice(at, start), marker(end - start));
        at = end;
      }
      parts.push(text.slice(at));
      out = parts.join("");
    }
    const held = streaming ? text.length - this.heldFrom(decoded, spans.at(-1)?.[1] ?? 0, text.length) : 0;
    return { text: out, count: spans.length, held };
  }

  /**
   * Where the forms are in decoded text: [from, to) spans, in order, overlapping ones joined (a
   * key beside a form of it). One native search per form: an expression of them all scans a
   * megabyte several times slower.
   */
  private spans(decoded: string): [number, number][] {
    const found: [number, number][] = [];
    for (const form of this.forms) {
      for (let at = decoded.indexOf(form); at !== -1; at = decoded.indexOf(form, at + form.length))
        found.push([at, at + form.length]);
    }
    if (found.length < 2) return found;
    found.sort((a, b) => a[0] - b[0]);
    const joined: [number, number][] = [];
    for (const span of found) {
      const last = joined.at(-1);
      if (last !== undefined && span[0] < last[1]) last[1] = Math.max(last[1], span[1]);
      else joined.push(span);
    }
    return joined;
  }

  /** Where the end of the original that could still become a form starts (its length if nowhere). */
  private heldFrom(decoded: Decoded, after: number, length: number): number {
    const { text } = decoded;
    let from = decoded.unfinished ?? length;
    for (const form of this.forms) {
      const first = form.charCodeAt(0);
      // A proper beginning: whole forms were masked already (after an escape cut short, one more character is to come).
      for (let index = Math.max(after, text.length - form.length + 1); index < text.length; index += 1) {
        if (text.charCodeAt(index) !== first || !form.startsWith(text.slice(index))) continue;
        from = Math.min(from, originOf(decoded, index));
        break;
      }
    }
    return from;
  }
}

/** Redactors by the keys they search for: requests with the same keys share one (and its compiled pattern). */
const cache = new Map<string, KeyRedactor>();
const cacheSize = 64;

/**
 * The redactor for a request's keys, shared with every other request that sent the same keys.
 *
 * @example redactorFor(new Set(["sk-…"])).redact("echo SK-…") // { text: "echo [forage-red…", count: 1 }
 */
export function redactorFor(keys: ReadonlySet<string>): KeyRedactor {
  const id = [...keys].sort().join("\n");
  const known = cache.get(id);
  if (known !== undefined) return known;
  const made = new KeyRedactor(keys);
  // Oldest out first: a rotated key's redactor is not kept for ever.
  if (cache.size >= cacheSize) cache.delete(cache.keys().next().value as string);
  cache.set(id, made);
  return made;
}

/** "[forage-redacted]" cut or padded with "*" to `length`. */
function marker(length: number): string {
  return "[forage-redacted]".padEnd(length, "*").slice(0, length);
}

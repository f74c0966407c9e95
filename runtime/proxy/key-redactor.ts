import { Transform, type TransformCallback } from "node:stream";

/** Base64 runs shorter than this are not redacted: they would mask ordinary text by chance. */
const minBase64Run = 12;

/**
 * The forms a key takes when an upstream reflects it: as sent; URL-encoded (a redirect's Location,
 * a page quoting the request URL); JSON-escaped (`/` as `\/`, `"` and `\` escaped, in error
 * bodies); and base64 at each of the three byte alignments, the characters that depend on the key
 * alone (`Basic base64(user:key)`, tokens and cookies built from it). Hex or other encodings are
 * left out: no API is known to echo them, and every extra form costs each response chunk a scan.
 *
 * @example keyForms("sk/1") // ["sk/1", "sk%2F1", "sk\\/1", …]
 */
export function keyForms(key: string): string[] {
  const forms = new Set([key, encodeURIComponent(key), JSON.stringify(key).slice(1, -1), JSON.stringify(key).slice(1, -1).replaceAll("/", "\\/")]);
  const bytes = Buffer.from(key, "latin1");
  for (let offset = 0; offset < 3; offset += 1) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    // Character i holds bits 6i…6i+5: keep those wholly inside the key's bytes.
    const core = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
    if (core.length >= minBase64Run) forms.add(core);
  }
  return [...forms].filter((form) => form.length > 0);
}

/** What a redaction pass changed. */
export interface Redacted {
  text: string;
  count: number;
}

/**
 * Replaces every form of the given keys in text (latin1: one character per byte) with a marker
 * of the same length, so a body's Content-Length stays true and nothing needs buffering.
 */
export class KeyRedactor {
  private readonly pattern: RegExp | null;
  private readonly forms: string[];

  constructor(keys: Iterable<string>) {
    this.forms = [...new Set([...keys].flatMap(keyForms))].sort((a, b) => b.length - a.length);
    this.pattern = this.forms.length === 0 ? null : new RegExp(this.forms.map(escapeRegExp).join("|"), "g");
  }

  get active(): boolean {
    return this.pattern !== null;
  }

  redact(text: string): Redacted {
    if (this.pattern === null) return { text, count: 0 };
    let count = 0;
    const out = text.replace(this.pattern, (found) => {
      count += 1;
      return marker(found.length);
    });
    return { text: out, count };
  }

  /**
   * The longest end of `text` that could begin a key form: held back until the next chunk, so a
   * key split across chunks is still found, and nothing else (an SSE event) is ever delayed.
   */
  heldBack(text: string): number {
    const longest = Math.min(text.length, (this.forms[0]?.length ?? 1) - 1);
    for (let length = longest; length > 0; length -= 1) {
      const tail = text.slice(text.length - length);
      if (this.forms.some((form) => form.startsWith(tail))) return length;
    }
    return 0;
  }

  /** A stream that redacts what passes through it, across chunk boundaries; `found` hears each count. */
  stream(found: (count: number) => void): Transform {
    let carry = "";
    return new Transform({
      transform: (chunk: Buffer, _encoding, done: TransformCallback) => {
        const { text, count } = this.redact(carry + chunk.toString("latin1"));
        if (count > 0) found(count);
        const held = this.heldBack(text);
        carry = text.slice(text.length - held);
        done(null, Buffer.from(text.slice(0, text.length - held), "latin1"));
      },
      flush: (done: TransformCallback) => done(null, Buffer.from(carry, "latin1")),
    });
  }
}

/** "[forage-redacted]" cut or padded with "*" to `length`. */
function marker(length: number): string {
  return "[forage-redacted]".padEnd(length, "*").slice(0, length);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

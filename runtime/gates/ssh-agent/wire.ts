/**
 * The SSH wire encoding (RFC 4251 §5) the agent protocol is written in: uint32, string, mpint,
 * byte and boolean. The reader never reads past its buffer: a short or lying length throws
 * `MalformedMessage`, which the agent answers with SSH_AGENT_FAILURE and a closed connection.
 */

/** Input from the sandbox that is not a well-formed message. */
export class MalformedMessage extends Error {}

/** Reads SSH wire types from one message, refusing to run past its end. */
export class WireReader {
  private offset = 0;

  constructor(private readonly buffer: Buffer) {}

  byte(): number {
    return this.take(1)[0] ?? 0;
  }

  uint32(): number {
    return this.take(4).readUInt32BE(0);
  }

  boolean(): boolean {
    return this.byte() !== 0;
  }

  /** A length-prefixed string as bytes (a view, not a copy). */
  string(): Buffer {
    return this.take(this.uint32());
  }

  /** A string that must be UTF-8 text without control characters (names, comments). */
  text(maxLength = 1024): string {
    const bytes = this.string();
    if (bytes.length > maxLength) throw new MalformedMessage(`a name longer than ${maxLength} bytes`);
    const text = bytes.toString("utf8");
    if (!Buffer.from(text, "utf8").equals(bytes) || /[\u0000-\u001f\u007f]/.test(text))
      throw new MalformedMessage("a name that is not printable UTF-8");
    return text;
  }

  /** Whether every byte has been read. */
  done(): boolean {
    return this.offset === this.buffer.length;
  }

  /** The bytes not read yet. */
  rest(): Buffer {
    return this.buffer.subarray(this.offset);
  }

  private take(length: number): Buffer {
    if (length > this.buffer.length - this.offset)
      throw new MalformedMessage(`a field of ${length} bytes runs past the message's end`);
    const bytes = this.buffer.subarray(this.offset, this.offset + length);
    this.offset += length;
    return bytes;
  }
}

/** Builds a message of SSH wire types. */
export class WireWriter {
  private readonly parts: Buffer[] = [];

  byte(value: number): this {
    this.parts.push(Buffer.from([value]));
    return this;
  }

  uint32(value: number): this {
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32BE(value, 0);
    this.parts.push(bytes);
    return this;
  }

  string(value: Buffer | string): this {
    const bytes = typeof value === "string" ? Buffer.from(value, "utf8") : value;
    this.uint32(bytes.length);
    this.parts.push(bytes);
    return this;
  }

  /** An unsigned big-endian magnitude as an mpint: no needless leading zeros, one where the top bit is set. */
  mpint(magnitude: Buffer): this {
    let start = 0;
    while (start < magnitude.length && magnitude[start] === 0) start++;
    const trimmed = magnitude.subarray(start);
    return this.string((trimmed[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
  }

  bytes(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** An mpint's bytes as an unsigned magnitude (refusing a negative one: no key field is). */
export function mpintMagnitude(bytes: Buffer): Buffer {
  if (bytes.length > 0 && (bytes[0] ?? 0) & 0x80) throw new MalformedMessage("a negative mpint");
  let start = 0;
  while (start < bytes.length && bytes[start] === 0) start++;
  return bytes.subarray(start);
}

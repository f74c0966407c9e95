// The D-Bus wire format, as much of it as a test's notification server needs: signatures parsed
// into types, values marshalled and unmarshalled (little-endian only: the peers are processes of
// this machine), and messages (header fields and body) encoded and cut out of a byte stream.
// Written from the D-Bus specification ("Message Protocol": marshalling, message format); no
// D-Bus library is packaged for Node in Debian, and the test needs only this much.

/** Alignment of each type code, in bytes (the specification's table of types). */
const alignments = {
  y: 1,
  b: 4,
  n: 2,
  q: 2,
  i: 4,
  u: 4,
  x: 8,
  t: 8,
  d: 8,
  h: 4,
  s: 4,
  o: 4,
  g: 1,
  a: 4,
  "(": 8,
  "{": 8,
  v: 1,
};

/** Parses a signature into its complete types: { code } | { code: "a", element } | { code: "(" | "{", fields }. */
export function parseSignature(signature) {
  const types = [];
  let at = 0;
  const one = () => {
    const code = signature[at++];
    if (code === "a") return { code, element: one() };
    if (code === "(" || code === "{") {
      const close = code === "(" ? ")" : "}";
      const fields = [];
      while (signature[at] !== close) {
        if (at >= signature.length) throw new Error(`unterminated ${code} in signature ${signature}`);
        fields.push(one());
      }
      at++;
      return { code, fields };
    }
    if (!(code in alignments)) throw new Error(`unsupported type ${code} in signature ${signature}`);
    return { code };
  };
  while (at < signature.length) types.push(one());
  return types;
}

const pad = (offset, alignment) => (alignment - (offset % alignment)) % alignment;

/**
 * Marshals values into a growing buffer; offsets count from the start of what it writes (8-aligned
 * in a message). It writes the types a server's replies and headers use: y b i u s o g v, arrays,
 * structs and dict entries.
 */
export class Writer {
  bytes = Buffer.alloc(256);
  length = 0;

  ensure(more) {
    if (this.length + more <= this.bytes.length) return;
    const larger = Buffer.alloc(Math.max(this.bytes.length * 2, this.length + more));
    this.bytes.copy(larger);
    this.bytes = larger;
  }

  align(alignment) {
    const gap = pad(this.length, alignment);
    this.ensure(gap);
    this.length += gap; // Buffer.alloc zero-fills: padding must be zero bytes
  }

  raw(chunk) {
    this.ensure(chunk.length);
    chunk.copy(this.bytes, this.length);
    this.length += chunk.length;
  }

  u32(value) {
    this.align(4);
    this.ensure(4);
    this.bytes.writeUInt32LE(value, this.length);
    this.length += 4;
  }

  /** Writes `value` as the complete type `type` (from parseSignature); a variant is [signature, value]. */
  write(type, value) {
    const { code } = type;
    this.align(alignments[code]);
    if (code === "y") return this.raw(Buffer.from([value]));
    if (code === "b" || code === "u") return this.u32(code === "b" ? Number(value === true) : value);
    if (code === "i") return this.raw(int32(value));
    if (code === "s" || code === "o") {
      const text = Buffer.from(value, "utf8");
      this.u32(text.length);
      return this.raw(Buffer.concat([text, Buffer.from([0])]));
    }
    if (code === "g")
      return this.raw(Buffer.concat([Buffer.from([value.length]), Buffer.from(value, "ascii"), Buffer.from([0])]));
    if (code === "v") {
      const [signature, inner] = value;
      this.write({ code: "g" }, signature);
      return this.write(parseSignature(signature)[0], inner);
    }
    if (code === "a") {
      const lengthAt = this.length;
      this.u32(0);
      this.align(alignments[type.element.code]);
      const start = this.length;
      for (const item of value) this.write(type.element, item);
      this.bytes.writeUInt32LE(this.length - start, lengthAt);
      return;
    }
    if (code === "(" || code === "{") return type.fields.forEach((field, index) => this.write(field, value[index]));
    throw new Error(`cannot write type ${code}`);
  }

  result() {
    return this.bytes.subarray(0, this.length);
  }
}

function int32(value) {
  const bytes = Buffer.alloc(4);
  bytes.writeInt32LE(value);
  return bytes;
}

/** Fixed-size types: their size and the Buffer method that reads them. */
const fixedTypes = {
  y: [1, "readUInt8"],
  n: [2, "readInt16LE"],
  q: [2, "readUInt16LE"],
  b: [4, "readUInt32LE"],
  i: [4, "readInt32LE"],
  u: [4, "readUInt32LE"],
  h: [4, "readUInt32LE"],
  x: [8, "readBigInt64LE"],
  t: [8, "readBigUInt64LE"],
  d: [8, "readDoubleLE"],
};

/** Unmarshals values of a message (offsets count from the message's first byte). */
export class Reader {
  constructor(bytes, at = 0) {
    this.bytes = bytes;
    this.at = at;
  }

  align(alignment) {
    this.at += pad(this.at, alignment);
  }

  /** Reads one value of `type`: numbers (64-bit ones as Number), strings, arrays; a variant as { signature, value }; a dict entry or struct as an array. */
  read(type) {
    const { code } = type;
    this.align(alignments[code]);
    const { bytes } = this;
    if (code in fixedTypes) {
      const [size, method] = fixedTypes[code];
      const value = bytes[method](this.at);
      this.at += size;
      return code === "b" ? value === 1 : typeof value === "bigint" ? Number(value) : value;
    }
    if (code === "s" || code === "o" || code === "g") {
      const length = code === "g" ? bytes.readUInt8(this.at) : bytes.readUInt32LE(this.at);
      this.at += code === "g" ? 1 : 4;
      const text = bytes.toString(code === "g" ? "ascii" : "utf8", this.at, this.at + length);
      this.at += length + 1;
      return text;
    }
    if (code === "v") {
      const signature = this.read({ code: "g" });
      return { signature, value: this.read(parseSignature(signature)[0]) };
    }
    if (code === "a") {
      const length = bytes.readUInt32LE(this.at);
      this.at += 4;
      this.align(alignments[type.element.code]);
      const end = this.at + length;
      const items = [];
      while (this.at < end) items.push(this.read(type.element));
      return items;
    }
    if (code === "(" || code === "{") return type.fields.map((field) => this.read(field));
    throw new Error(`cannot read type ${code}`);
  }
}

/** Message types and header field codes (the specification's "Message Format"). */
export const messageType = { methodCall: 1, methodReturn: 2, error: 3, signal: 4 };
const fieldCodes = {
  path: [1, "o"],
  interface: [2, "s"],
  member: [3, "s"],
  errorName: [4, "s"],
  replySerial: [5, "u"],
  destination: [6, "s"],
  sender: [7, "s"],
  signature: [8, "g"],
};
const fieldNames = Object.fromEntries(Object.entries(fieldCodes).map(([name, [code]]) => [code, name]));
const headerFields = parseSignature("a(yv)")[0];

/** Encodes a message: { type, serial, flags?, fields: { path, member, … }, signature?, body: [values] }. */
export function encodeMessage({ type, serial, flags = 0, fields, signature = "", body = [] }) {
  const payload = new Writer();
  parseSignature(signature).forEach((bodyType, index) => payload.write(bodyType, body[index]));
  const header = new Writer();
  header.raw(Buffer.from(["l".charCodeAt(0), type, flags, 1]));
  header.u32(payload.length);
  header.u32(serial);
  const all = { ...fields, ...(signature === "" ? {} : { signature }) };
  header.write(
    headerFields,
    Object.entries(all).map(([name, value]) => [fieldCodes[name][0], [fieldCodes[name][1], value]]),
  );
  header.align(8);
  return Buffer.concat([header.result(), payload.result()]);
}

/** The length of the first message in `bytes`, or undefined while it is incomplete. */
export function messageLength(bytes) {
  if (bytes.length < 16) return undefined;
  if (bytes[0] !== "l".charCodeAt(0)) throw new Error("big-endian message: this test server reads little-endian only");
  const fieldsLength = bytes.readUInt32LE(12);
  const total = 16 + fieldsLength + pad(16 + fieldsLength, 8) + bytes.readUInt32LE(4);
  return bytes.length >= total ? total : undefined;
}

/** Decodes one complete message: { type, flags, serial, fields, body }. */
export function decodeMessage(bytes) {
  const reader = new Reader(bytes, 12);
  const fields = {};
  for (const [code, variant] of reader.read(headerFields))
    if (code in fieldNames) fields[fieldNames[code]] = variant.value;
  reader.align(8);
  const body = parseSignature(fields.signature ?? "").map((bodyType) => reader.read(bodyType));
  return { type: bytes[1], flags: bytes[2], serial: bytes.readUInt32LE(8), fields, body };
}

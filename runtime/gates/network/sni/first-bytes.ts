import { maxHeadBytes, readRequestHead } from "./http-request-head.js";

/**
 * Reading the name a connection is for from its first bytes, without terminating anything:
 * the TLS ClientHello's server_name, or an HTTP/1 request's Host header.
 */

/** Bytes the gate reads at most before deciding (a ClientHello fits one 16 KiB TLS record). */
export const maxFirstBytes = maxHeadBytes;

export type FirstBytes = { kind: "need-more" } | { kind: "name"; name: string } | { kind: "refuse"; reason: string };

/** The SNI host name of a TLS ClientHello in its first record. */
export function readClientHello(data: Buffer): FirstBytes {
  if (data.length < 5) return { kind: "need-more" };
  if (data[0] !== 22) return { kind: "refuse", reason: "not TLS" };
  const recordLength = data.readUInt16BE(3);
  if (data.length < 5 + recordLength)
    return data.length >= maxFirstBytes ? { kind: "refuse", reason: "ClientHello too long" } : { kind: "need-more" };
  const record = data.subarray(5, 5 + recordLength);
  try {
    return serverName(record);
  } catch {
    return { kind: "refuse", reason: "malformed ClientHello" };
  }
}

/** Walks handshake → ClientHello → extensions → server_name (type 0), host_name (type 0). */
function serverName(record: Buffer): FirstBytes {
  const reader = new Reader(record);
  if (reader.u8() !== 1) return { kind: "refuse", reason: "not a ClientHello" };
  const helloLength = reader.u24();
  if (helloLength > reader.remaining()) return { kind: "refuse", reason: "ClientHello split over records" };
  reader.skip(2 + 32); // legacy_version, random
  reader.skip(reader.u8()); // session id
  reader.skip(reader.u16()); // cipher suites
  reader.skip(reader.u8()); // compression methods
  if (reader.remaining() === 0) return { kind: "refuse", reason: "no SNI" };
  const extensionsEnd = reader.offset + reader.u16();
  while (reader.offset + 4 <= extensionsEnd) {
    const type = reader.u16();
    const length = reader.u16();
    if (type !== 0) {
      reader.skip(length);
      continue;
    }
    const listEnd = reader.offset + reader.u16();
    while (reader.offset + 3 <= listEnd) {
      const nameType = reader.u8();
      const name = reader.bytes(reader.u16()).toString("latin1");
      if (nameType === 0) return { kind: "name", name: name.toLowerCase().replace(/\.$/, "") };
    }
  }
  return { kind: "refuse", reason: "no SNI" };
}

/**
 * The host (without port) an HTTP/1 request head is for, read strictly (http-request-head.ts):
 * absolute-form targets naming another host, `Host :`, folded lines, several Hosts, a port other
 * than the connection's and ambiguous body framing are refused.
 */
export function readHttpHost(data: Buffer, port = 80): FirstBytes {
  const head = readRequestHead(data, port);
  return head.kind === "head" ? { kind: "name", name: head.host } : head;
}

class Reader {
  offset = 0;
  constructor(private readonly data: Buffer) {}
  remaining(): number {
    return this.data.length - this.offset;
  }
  private need(count: number): void {
    if (count > this.remaining()) throw new Error("truncated");
  }
  u8(): number {
    this.need(1);
    return this.data.readUInt8(this.offset++);
  }
  u16(): number {
    this.need(2);
    const value = this.data.readUInt16BE(this.offset);
    this.offset += 2;
    return value;
  }
  u24(): number {
    return (this.u8() << 16) | this.u16();
  }
  skip(count: number): void {
    this.need(count);
    this.offset += count;
  }
  bytes(count: number): Buffer {
    this.need(count);
    const slice = this.data.subarray(this.offset, this.offset + count);
    this.offset += count;
    return slice;
  }
}

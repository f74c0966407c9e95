/** A DNS message as sent over TCP: preceded by its length in two bytes (RFC 1035 4.2.2). */
export function tcpFrame(message: Buffer): Buffer {
  const length = Buffer.alloc(2);
  length.writeUInt16BE(message.length);
  return Buffer.concat([length, message]);
}

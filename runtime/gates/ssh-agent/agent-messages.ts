import { MalformedMessage, WireReader, WireWriter } from "./wire.js";

/**
 * The SSH agent protocol's messages (draft-miller-ssh-agent, §3 and §6.1) this agent reads and
 * writes. It serves two requests, REQUEST_IDENTITIES and SIGN_REQUEST; every other request
 * (adding, removing or locking keys, smartcards, extensions such as session-bind) is answered
 * with SSH_AGENT_FAILURE: the sandbox must not change what the host's agent holds.
 */
export const agentMessage = {
  failure: 5,
  success: 6,
  requestIdentities: 11,
  identitiesAnswer: 12,
  signRequest: 13,
  signResponse: 14,
  addIdentity: 17,
  removeIdentity: 18,
  removeAllIdentities: 19,
  lock: 22,
  unlock: 23,
  extension: 27,
} as const;

/** SIGN_REQUEST flags (§5.3): an RSA key signs with SHA-256 or SHA-512 instead of SHA-1. */
export const signFlags = { rsaSha2_256: 2, rsaSha2_512: 4 } as const;

/**
 * The largest message accepted (the length prefix excluded). OpenSSH's agent takes 256 KiB too;
 * a sign request's data (a session id and a userauth request, or a hashed SSHSIG) is far smaller.
 */
export const maxMessageBytes = 256 * 1024;

/** A request as the agent acts on it. */
export type AgentRequest =
  | { type: "identities" }
  | { type: "sign"; keyBlob: Buffer; data: Buffer; flags: number }
  | { type: "refused"; code: number };

/** One public key as REQUEST_IDENTITIES lists it. */
export interface ListedKey {
  blob: Buffer;
  comment: string;
}

/** Parses one message body (the type byte and what follows). Throws MalformedMessage. */
export function parseRequest(body: Buffer): AgentRequest {
  if (body.length === 0) throw new MalformedMessage("an empty message");
  const reader = new WireReader(body);
  const code = reader.byte();
  if (code === agentMessage.requestIdentities) {
    if (!reader.done()) throw new MalformedMessage("REQUEST_IDENTITIES with a body");
    return { type: "identities" };
  }
  if (code === agentMessage.signRequest) {
    const keyBlob = reader.string();
    const data = reader.string();
    const flags = reader.uint32();
    if (!reader.done()) throw new MalformedMessage("SIGN_REQUEST with bytes after its flags");
    return { type: "sign", keyBlob, data, flags };
  }
  return { type: "refused", code };
}

/** Frames a message body with its length. */
export function frame(body: Buffer): Buffer {
  return Buffer.concat([new WireWriter().uint32(body.length).bytes(), body]);
}

export function failureMessage(): Buffer {
  return frame(Buffer.from([agentMessage.failure]));
}

export function identitiesMessage(keys: ListedKey[]): Buffer {
  const writer = new WireWriter().byte(agentMessage.identitiesAnswer).uint32(keys.length);
  for (const key of keys) writer.string(key.blob).string(key.comment);
  return frame(writer.bytes());
}

export function signResponseMessage(signature: Buffer): Buffer {
  return frame(new WireWriter().byte(agentMessage.signResponse).string(signature).bytes());
}

/**
 * Splits a byte stream into message bodies. `push` returns the complete bodies so far; a length
 * of 0 or above `maxMessageBytes` throws MalformedMessage before its body is buffered.
 */
export class FrameDecoder {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly maxBytes = maxMessageBytes) {}

  push(chunk: Buffer): Buffer[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const bodies: Buffer[] = [];
    while (this.pending.length >= 4) {
      const length = this.pending.readUInt32BE(0);
      if (length === 0 || length > this.maxBytes)
        throw new MalformedMessage(`a message of ${length} bytes (at most ${this.maxBytes})`);
      if (this.pending.length < 4 + length) break;
      bodies.push(Buffer.from(this.pending.subarray(4, 4 + length)));
      this.pending = this.pending.subarray(4 + length);
    }
    return bodies;
  }

  /** Bytes of an incomplete message still held. */
  get buffered(): number {
    return this.pending.length;
  }
}

/** Parses an IDENTITIES_ANSWER body (from the user's own agent, when relaying). */
export function parseIdentitiesAnswer(body: Buffer): ListedKey[] {
  const reader = new WireReader(body);
  if (reader.byte() !== agentMessage.identitiesAnswer) throw new MalformedMessage("not an IDENTITIES_ANSWER");
  const count = reader.uint32();
  if (count > 1024) throw new MalformedMessage(`${count} keys`);
  const keys: ListedKey[] = [];
  for (let i = 0; i < count; i++)
    keys.push({ blob: Buffer.from(reader.string()), comment: reader.string().toString("utf8") });
  if (!reader.done()) throw new MalformedMessage("bytes after the last key");
  return keys;
}

/** Parses a SIGN_RESPONSE body (from the user's own agent); null for SSH_AGENT_FAILURE. */
export function parseSignResponse(body: Buffer): Buffer | null {
  const reader = new WireReader(body);
  const code = reader.byte();
  if (code === agentMessage.failure && reader.done()) return null;
  if (code !== agentMessage.signResponse) throw new MalformedMessage("not a SIGN_RESPONSE");
  const signature = Buffer.from(reader.string());
  if (!reader.done()) throw new MalformedMessage("bytes after the signature");
  return signature;
}

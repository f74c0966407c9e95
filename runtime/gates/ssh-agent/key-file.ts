import { createPrivateKey, type JsonWebKey, type KeyObject } from "node:crypto";
import { SandboxError } from "../../core/errors.js";
import { openRegularFile } from "../../core/open-regular-file.js";
import { fingerprintOf, signWithKey, type AgentKey, type KeyType } from "./ssh-key.js";
import { MalformedMessage, mpintMagnitude, WireReader, WireWriter } from "./wire.js";

/** Larger than any SSH private key file; anything bigger is not one. */
const maxKeyFileBytes = 64 * 1024;

const curves: Record<string, { type: KeyType; crv: string; size: number }> = {
  nistp256: { type: "ecdsa-sha2-nistp256", crv: "P-256", size: 32 },
  nistp384: { type: "ecdsa-sha2-nistp384", crv: "P-384", size: 48 },
  nistp521: { type: "ecdsa-sha2-nistp521", crv: "P-521", size: 66 },
};

/**
 * Reads an unencrypted private key file of the user's: OpenSSH's own format ("BEGIN OPENSSH
 * PRIVATE KEY": Ed25519, RSA, ECDSA P-256/384/521) or PEM (PKCS#1, PKCS#8, SEC1), parsed with
 * node:crypto into a key that never leaves this process. The file must be the user's own regular
 * file, checked on the opened descriptor with no link followed: a path from a config or a client
 * must not make root read root's keys (the host's sshd key) for a sandbox.
 */
export async function readKeyFile(path: string, ownerUid: number): Promise<AgentKey> {
  const text = await readUsersFile(path, ownerUid);
  try {
    return parsePrivateKey(text, path);
  } catch (error) {
    if (error instanceof SandboxError) throw error;
    throw new SandboxError(
      `ssh-agent key ${path} is not an SSH private key this agent reads (${error instanceof Error ? error.message : String(error)})`,
      "config",
    );
  }
}

async function readUsersFile(path: string, ownerUid: number): Promise<string> {
  const refuse = (why: string): SandboxError => new SandboxError(`ssh-agent key ${path} ${why}`, "config");
  const { file, info } = await openRegularFile(path, refuse, "name the key file itself");
  try {
    if (info.uid !== ownerUid) throw refuse(`is not owned by the sandbox's user (uid ${ownerUid})`);
    if (info.size > maxKeyFileBytes) throw refuse(`is larger than ${maxKeyFileBytes} bytes: not an SSH private key`);
    return await file.readFile("utf8");
  } finally {
    await file.close();
  }
}

/** Parses a private key's text; `name` is the comment of a PEM key (which holds none). */
export function parsePrivateKey(text: string, name: string): AgentKey {
  const openssh = /-----BEGIN OPENSSH PRIVATE KEY-----([\s\S]*?)-----END OPENSSH PRIVATE KEY-----/.exec(text);
  if (openssh !== null) return parseOpenSshKey(Buffer.from((openssh[1] ?? "").replace(/\s+/g, ""), "base64"));
  if (/-----BEGIN ENCRYPTED PRIVATE KEY-----|Proc-Type: 4,ENCRYPTED/.test(text)) throw encrypted(name);
  const key = createPrivateKey({ key: text, format: "pem" });
  return agentKeyOf(key, key.export({ format: "jwk" }), name);
}

function encrypted(name: string): SandboxError {
  return new SandboxError(
    `ssh-agent key ${name} is protected by a passphrase: add it to your own agent (ssh-add) and name its fingerprint instead, so requests are relayed there`,
    "config",
  );
}

/** openssh-key-v1 (PROTOCOL.key): one key, cipher and KDF "none". */
function parseOpenSshKey(bytes: Buffer): AgentKey {
  const magic = Buffer.from("openssh-key-v1\0", "latin1");
  if (!bytes.subarray(0, magic.length).equals(magic)) throw new MalformedMessage("no openssh-key-v1 magic");
  const reader = new WireReader(bytes.subarray(magic.length));
  const cipher = reader.string().toString("latin1");
  reader.string(); // KDF name
  reader.string(); // KDF options
  if (cipher !== "none") throw encrypted("file");
  if (reader.uint32() !== 1) throw new MalformedMessage("more than one key in the file");
  const publicBlob = Buffer.from(reader.string());
  const secret = new WireReader(reader.string());
  if (secret.uint32() !== secret.uint32())
    throw new MalformedMessage("check bytes differ (a wrong passphrase or a damaged file)");
  const type = secret.string().toString("latin1");
  const jwk = privateJwk(type, secret);
  const comment = secret.string().toString("utf8");
  const key = agentKeyOf(createPrivateKey({ key: jwk, format: "jwk" }), jwk, comment);
  if (!key.blob.equals(publicBlob)) throw new MalformedMessage("its private part does not match its public key");
  return key;
}

const b64 = (bytes: Buffer): string => bytes.toString("base64url");
const padded = (bytes: Buffer, size: number): Buffer =>
  Buffer.concat([Buffer.alloc(Math.max(0, size - bytes.length)), bytes]);
const bigOf = (bytes: Buffer): bigint => (bytes.length === 0 ? 0n : BigInt(`0x${bytes.toString("hex")}`));
const bytesOf = (value: bigint): Buffer => {
  const hex = value.toString(16);
  return Buffer.from(hex.length % 2 === 0 ? hex : `0${hex}`, "hex");
};

/** The private fields of one key type (PROTOCOL.key, and ssh-keygen's sshkey_private_serialize), as a JWK. */
function privateJwk(type: string, reader: WireReader): JsonWebKey {
  if (type === "ssh-ed25519") {
    const publicKey = reader.string();
    const both = reader.string();
    if (publicKey.length !== 32 || both.length !== 64) throw new MalformedMessage("an Ed25519 key of the wrong size");
    return { kty: "OKP", crv: "Ed25519", x: b64(publicKey), d: b64(both.subarray(0, 32)) };
  }
  if (type === "ssh-rsa") {
    const [n, e, d, iqmp, p, q] = Array.from({ length: 6 }, () => mpintMagnitude(reader.string()));
    if (
      n === undefined ||
      e === undefined ||
      d === undefined ||
      iqmp === undefined ||
      p === undefined ||
      q === undefined
    )
      throw new MalformedMessage("an RSA key without its fields");
    // JWK wants d mod (p-1) and d mod (q-1) as well; OpenSSH's iqmp is q⁻¹ mod p, JWK's qi.
    const [dBig, pBig, qBig] = [bigOf(d), bigOf(p), bigOf(q)];
    return {
      kty: "RSA",
      n: b64(n),
      e: b64(e),
      d: b64(d),
      p: b64(p),
      q: b64(q),
      dp: b64(bytesOf(dBig % (pBig - 1n))),
      dq: b64(bytesOf(dBig % (qBig - 1n))),
      qi: b64(iqmp),
    };
  }
  const curve = curves[type.replace(/^ecdsa-sha2-/, "")];
  if (curve === undefined || !type.startsWith("ecdsa-sha2-"))
    throw new MalformedMessage(
      `key type ${JSON.stringify(type)} (this agent reads ssh-ed25519, ssh-rsa and ecdsa-sha2-nistp256/384/521)`,
    );
  reader.string(); // the curve's name again
  const point = reader.string();
  const d = mpintMagnitude(reader.string());
  if (point.length !== 1 + 2 * curve.size || point[0] !== 4)
    throw new MalformedMessage("an ECDSA point that is not uncompressed");
  return {
    kty: "EC",
    crv: curve.crv,
    x: b64(point.subarray(1, 1 + curve.size)),
    y: b64(point.subarray(1 + curve.size)),
    d: b64(padded(d, curve.size)),
  };
}

/** The key's public blob, from its JWK (RFC 4253 §6.6, RFC 8709, RFC 5656 §3.1). */
function agentKeyOf(key: KeyObject, jwk: JsonWebKey, comment: string): AgentKey {
  const field = (value: string | undefined): Buffer => Buffer.from(value ?? "", "base64url");
  let type: KeyType;
  let blob: Buffer;
  if (jwk.kty === "OKP" && jwk.crv === "Ed25519") {
    type = "ssh-ed25519";
    blob = new WireWriter().string(type).string(field(jwk.x)).bytes();
  } else if (jwk.kty === "RSA") {
    type = "ssh-rsa";
    blob = new WireWriter().string(type).mpint(field(jwk.e)).mpint(field(jwk.n)).bytes();
  } else {
    const entry = Object.entries(curves).find(([, c]) => c.crv === jwk.crv);
    if (jwk.kty !== "EC" || entry === undefined)
      throw new MalformedMessage(`a ${jwk.kty ?? "unknown"} key (this agent reads Ed25519, RSA and ECDSA keys)`);
    const [name, curve] = entry;
    type = curve.type;
    blob = new WireWriter()
      .string(type)
      .string(name)
      .string(Buffer.concat([Buffer.from([4]), padded(field(jwk.x), curve.size), padded(field(jwk.y), curve.size)]))
      .bytes();
  }
  return {
    blob,
    comment,
    fingerprint: fingerprintOf(blob),
    sign: (data, flags) => Promise.resolve(signWithKey(type, key, data, flags)),
  };
}

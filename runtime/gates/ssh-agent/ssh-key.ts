import { createHash, sign as cryptoSign, type KeyObject } from "node:crypto";
import { signFlags } from "./agent-messages.js";
import { WireWriter } from "./wire.js";

/** A key the agent offers: its public blob (RFC 4253 §6.6), comment, fingerprint, and how it signs. */
export interface AgentKey {
  blob: Buffer;
  comment: string;
  /** "SHA256:<base64 without padding>", as `ssh-keygen -l` shows it. */
  fingerprint: string;
  /** Signs `data` as a SIGN_REQUEST with `flags` asks; resolves with the signature blob, or null when it cannot. */
  sign(data: Buffer, flags: number): Promise<Buffer | null>;
}

/** The key's fingerprint as `ssh-keygen -l -E sha256` prints it. */
export function fingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash("sha256").update(blob).digest("base64").replace(/=+$/, "")}`;
}

/** The SSH key types read from files (certificates and security keys are not). */
export type KeyType = "ssh-ed25519" | "ssh-rsa" | "ecdsa-sha2-nistp256" | "ecdsa-sha2-nistp384" | "ecdsa-sha2-nistp521";

const ecdsaHash: Record<string, string> = {
  "ecdsa-sha2-nistp256": "sha256",
  "ecdsa-sha2-nistp384": "sha384",
  "ecdsa-sha2-nistp521": "sha512",
};

/**
 * Signs with a private key held in this process, in the signature format of RFC 8709 (Ed25519),
 * RFC 8332 (RSA: rsa-sha2-512 when flag 4 asks, rsa-sha2-256 for flag 2, else ssh-rsa) and
 * RFC 5656 §3.1.2 (ECDSA: r and s as mpints).
 */
export function signWithKey(type: KeyType, key: KeyObject, data: Buffer, flags: number): Buffer {
  if (type === "ssh-ed25519")
    return new WireWriter()
      .string(type)
      .string(cryptoSign(null, data, key))
      .bytes();
  if (type === "ssh-rsa") {
    const [algorithm, hash] =
      flags & signFlags.rsaSha2_512
        ? ["rsa-sha2-512", "sha512"]
        : flags & signFlags.rsaSha2_256
          ? ["rsa-sha2-256", "sha256"]
          : ["ssh-rsa", "sha1"];
    return new WireWriter()
      .string(algorithm)
      .string(cryptoSign(hash, data, key))
      .bytes();
  }
  const raw = cryptoSign(ecdsaHash[type] ?? "sha256", data, { key, dsaEncoding: "ieee-p1363" });
  const half = raw.length / 2;
  const inner = new WireWriter().mpint(raw.subarray(0, half)).mpint(raw.subarray(half)).bytes();
  return new WireWriter().string(type).string(inner).bytes();
}

import type { SignDestination } from "../approvals/approval.js";
import { fingerprintOf } from "./ssh-key.js";
import { WireReader } from "./wire.js";

/** SSH_MSG_USERAUTH_REQUEST (RFC 4252 §7). */
const userauthRequest = 50;

/**
 * What a SIGN_REQUEST's data shows of where the signature goes, for the human who approves it.
 *
 * - A login (RFC 4252 §7: session id, SSH_MSG_USERAUTH_REQUEST, user, service, "publickey", …):
 *   the user name on the server, and with OpenSSH's "publickey-hostbound-v00@openssh.com" the
 *   server's host key, whose fingerprint is shown. The server's host name is in no part of it
 *   (the client knows it, the agent is never told), so it cannot be shown.
 * - An SSHSIG signature (ssh-keygen -Y sign, git's commit signing): its namespace ("git", "file").
 *
 * Undefined when the data is neither: the human then sees the key alone. The data comes from the
 * sandbox, so this only describes it, as data (the user name, namespace and hash are its text,
 * shown quoted: signDestinationText); nothing is decided on it.
 */
export function describeSignData(data: Buffer): SignDestination | undefined {
  return sshsigNamespace(data) ?? loginDestination(data);
}

function loginDestination(data: Buffer): SignDestination | undefined {
  try {
    const reader = new WireReader(data);
    const sessionId = reader.string();
    if (sessionId.length === 0 || sessionId.length > 64 || reader.byte() !== userauthRequest) return undefined;
    const user = reader.text(256);
    const service = reader.text(64);
    const method = reader.text(64);
    if (service !== "ssh-connection" || !method.startsWith("publickey") || !reader.boolean()) return undefined;
    reader.text(128); // the signature algorithm
    reader.string(); // the public key, the one being asked about
    if (method !== "publickey-hostbound-v00@openssh.com")
      return reader.done() ? { kind: "ssh-login", user } : undefined;
    const hostKey = reader.string();
    return reader.done() ? { kind: "ssh-login", user, hostKey: fingerprintOf(hostKey) } : undefined;
  } catch {
    return undefined;
  }
}

/** PROTOCOL.sshsig: "SSHSIG", namespace, reserved, hash algorithm, H(message). */
function sshsigNamespace(data: Buffer): SignDestination | undefined {
  const magic = Buffer.from("SSHSIG", "latin1");
  if (!data.subarray(0, magic.length).equals(magic)) return undefined;
  try {
    const reader = new WireReader(data.subarray(magic.length));
    const namespace = reader.text(128);
    reader.string();
    const hash = reader.text(32);
    reader.string();
    return reader.done() ? { kind: "sshsig", namespace, hash } : undefined;
  } catch {
    return undefined;
  }
}

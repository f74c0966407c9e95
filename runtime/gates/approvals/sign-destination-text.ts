import type { SignDestination } from "./approval.js";
import { quoteSandboxText } from "../shared/agent-text.js";

/**
 * What a signature is for, in forage's words with the sandbox's text quoted (quoteSandboxText):
 * a user name such as `git\nhost: github.com` or `x to a server with host key SHA256:…` stays
 * inside its quotes, one line, never in the shape of what forage says around it. The host key's
 * fingerprint is forage's own reading of the key the data names (the server checks the signature
 * against its own key, so the signature is good for that server only).
 *
 * @example signDestinationText({ kind: "ssh-login", user: "git", hostKey: "SHA256:q1w2" }) // → 'ssh login as "git" to a server with host key SHA256:q1w2'
 * @example signDestinationText({ kind: "sshsig", namespace: "git", hash: "sha512" }) // → 'an SSHSIG signature, namespace "git", hash "sha512"'
 */
export function signDestinationText(destination: SignDestination): string {
  if (destination.kind === "sshsig")
    return `an SSHSIG signature, namespace ${quoteSandboxText(destination.namespace)}, hash ${quoteSandboxText(destination.hash)}`;
  const login = `ssh login as ${quoteSandboxText(destination.user)}`;
  // The fingerprint is computed here of the key's bytes: "SHA256:" and base64, no text of the sandbox's.
  return destination.hostKey === undefined ? login : `${login} to a server with host key ${destination.hostKey}`;
}

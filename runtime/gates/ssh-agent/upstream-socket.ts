import { SandboxError } from "../../core/errors.js";
import type { SandboxMetadata } from "../../state/metadata.js";
import { upstreamKeys } from "./upstream-agent.js";

/** A unix socket's path fits in sockaddr_un.sun_path (108 bytes with its NUL). */
export const maxSocketPathBytes = 107;

/**
 * The caller's SSH_AUTH_SOCK as forage-ctl passes it on: only a path a socket can have (absolute,
 * short enough, no control characters); anything else is left out, as if it were unset.
 */
export function usableAgentSocket(value: string | undefined): string | undefined {
  if (
    value === undefined ||
    !value.startsWith("/") ||
    Buffer.byteLength(value) > maxSocketPathBytes ||
    /[\x00-\x1f\x7f]/.test(value)
  )
    return undefined;
  return value;
}

/** The agent's keys named by fingerprint: the ones relayed to the user's own agent. */
export function relayedFingerprints(agent: SandboxMetadata["sshAgent"]): string[] {
  return (agent?.keys ?? []).filter((key) => key.startsWith("SHA256:"));
}

/**
 * The sandbox's agent with the user's own agent to relay to, checked now: when its keys name
 * fingerprints, `socket` (the SSH_AUTH_SOCK of whoever runs up, start or reset; else the one
 * recorded before) must reach an agent, as the user, that holds every one of them, so a sandbox
 * never starts with fewer keys than its template says and the failure is the command's, not a
 * line in the daemon's log. Without fingerprints nothing is asked and no socket recorded.
 */
export async function withUpstreamAgent(
  agent: SandboxMetadata["sshAgent"],
  socket: string | undefined,
  owner: { uid: number; gid: number },
): Promise<SandboxMetadata["sshAgent"]> {
  const fingerprints = relayedFingerprints(agent);
  if (agent === null || fingerprints.length === 0) return agent;
  const { upstreamSocket: _recorded, ...rest } = agent;
  const path = socket ?? agent.upstreamSocket;
  const named = fingerprints.join(", ");
  if (path === undefined) {
    throw new SandboxError(
      `sshAgent names keys by fingerprint (${named}), which are relayed to your own SSH agent, and SSH_AUTH_SOCK is not set here: run forage-ctl where your agent is (ssh-add -l lists its keys), or name key files instead`,
      "usage",
    );
  }
  await upstreamKeys({ socket: path, uid: owner.uid, gid: owner.gid }, fingerprints).catch((error: unknown) => {
    throw new SandboxError(
      `sshAgent: your SSH agent at ${path} (SSH_AUTH_SOCK): ${error instanceof Error ? error.message : String(error)}`,
      "usage",
    );
  });
  return { ...rest, upstreamSocket: path };
}

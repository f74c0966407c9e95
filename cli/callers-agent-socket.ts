import { usableAgentSocket } from "../runtime/gates/ssh-agent/upstream-socket.js";

/**
 * This shell's SSH agent (SSH_AUTH_SOCK), passed with up, start and reset: a sandbox's SSH agent
 * relays keys named by fingerprint there, as the user. Undefined when unset or not a socket's path.
 */
export function callersAgentSocket(): string | undefined {
  return usableAgentSocket(process.env.SSH_AUTH_SOCK);
}

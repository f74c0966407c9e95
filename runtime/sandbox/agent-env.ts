import { backendOf } from "../backends/registry.js";
import type { SandboxMetadata } from "../state/metadata.js";
import { sshAgentSocketInside } from "../gates/ssh-agent/sandbox-ssh-agent.js";

/**
 * The whole environment of a process started in a sandbox. Nothing is inherited from the caller
 * except TERM: the host's variables (tokens, SSH agent sockets, proxies) never leak in.
 */
export function sandboxEnv(
  metadata: SandboxMetadata,
  user: string | null,
  term: string | undefined,
): Record<string, string> {
  const home = user === null ? "/root" : `/home/${user}`;
  const kind = backendOf(metadata.runtime).inside;
  const env: Record<string, string> = {
    PATH: kind.path(user),
    HOME: home,
    USER: user ?? "root",
    LOGNAME: user ?? "root",
    SHELL: kind.shell,
    LANG: "C.UTF-8",
    TERM: term !== undefined && /^[A-Za-z0-9._+-]{1,64}$/.test(term) ? term : "xterm-256color",
    FORAGE_SANDBOX: metadata.name,
  };
  // The host-side agent's socket (sshAgent): the only SSH agent a sandbox's process sees.
  if (metadata.sshAgent !== null) env.SSH_AUTH_SOCK = sshAgentSocketInside;
  const { gitUser, gitEmail } = metadata.agentIdentity;
  // git and jj each read their own variables; both get the sandbox's identity.
  if (gitUser !== undefined)
    Object.assign(env, { GIT_AUTHOR_NAME: gitUser, GIT_COMMITTER_NAME: gitUser, JJ_USER: gitUser });
  if (gitEmail !== undefined)
    Object.assign(env, { GIT_AUTHOR_EMAIL: gitEmail, GIT_COMMITTER_EMAIL: gitEmail, JJ_EMAIL: gitEmail });
  return env;
}

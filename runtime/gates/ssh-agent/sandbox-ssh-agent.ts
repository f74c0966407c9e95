import { join } from "node:path";
import type { AskApproval } from "../approvals/approval.js";
import { escapeSandboxText } from "../shared/agent-text.js";
import { signDestinationText } from "../approvals/sign-destination-text.js";
import { gateAudit } from "../shared/gate-audit.js";
import type { Bind } from "../../core/bind.js";
import type { RuntimeContext } from "../../core/context.js";
import { SandboxError } from "../../core/errors.js";
import { pathUnder } from "../../core/names.js";
import { prepareSocketDirectory } from "../../core/private-socket.js";
import type { SandboxMetadata } from "../../state/metadata.js";
import { readKeyFile } from "./key-file.js";
import { SshAgentServer, type SignRecord } from "./ssh-agent-server.js";
import type { AgentKey } from "./ssh-key.js";
import { upstreamKeys } from "./upstream-agent.js";
import { relayedFingerprints } from "./upstream-socket.js";

/** Where the agent's socket directory appears in the sandbox, and the socket SSH_AUTH_SOCK names. */
export const sshAgentMountDir = "/run/forage/ssh-agent";
const socketName = "agent.sock";
export const sshAgentSocketInside = `${sshAgentMountDir}/${socketName}`;

/** The sandbox's socket directory on the host: root's, 0755; the socket in it is the agent user's, 0600. */
export function sshAgentHostDir(context: Pick<RuntimeContext, "paths">, sandbox: string): string {
  return pathUnder(context.paths.sshAgentDir, sandbox);
}

/**
 * The bind of the socket's directory (not the socket: a restarted agent makes a new one there),
 * read-only: connecting to a socket needs no writable mount. The directory is made here (root's,
 * 0755) so the sandbox starts whether or not its agent is up yet. None without an agent.
 */
export async function sshAgentBinds(
  context: Pick<RuntimeContext, "paths">,
  metadata: SandboxMetadata,
): Promise<Bind[]> {
  if (metadata.sshAgent === null) return [];
  const dir = sshAgentHostDir(context, metadata.name);
  await prepareSocketDirectory(join(dir, socketName));
  return [{ source: dir, target: sshAgentMountDir, readOnly: true }];
}

export interface SandboxSshAgentOptions {
  /** The approvals queue (the daemon's), asked for every signature when confirm is on. */
  ask: AskApproval;
  /** How long a signature waits for an answer; the queue's default when undefined. */
  deadlineMs?: number;
}

/**
 * Starts the SSH agent of a sandbox whose metadata asks for one: the keys are read now (files as
 * the user's own; fingerprints from the user's agent, relayed there for each signature), the
 * socket listens in `<run>/ssh-agent/<sandbox>/` for the sandbox's user, and every signature
 * is asked through `ask` (or with confirm off, made) and recorded in the sandbox's audit log.
 * Null when the sandbox has no agent. The caller (the daemon, for a running sandbox) keeps the
 * handle and closes it when the sandbox stops; the directory must exist before the container
 * starts, since it is bound in.
 */
export async function startSandboxSshAgent(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  options: SandboxSshAgentOptions,
): Promise<{ socket: string; close(): Promise<void> } | null> {
  if (metadata.sshAgent === null) return null;
  const keys = await resolveKeys(metadata);
  const socket = join(sshAgentHostDir(context, metadata.name), socketName);
  await prepareSocketDirectory(socket);
  const audit = gateAudit(context.paths, metadata.name, "ssh-sign");
  const server = new SshAgentServer({
    sandbox: metadata.name,
    keys,
    confirm: metadata.sshAgent.confirm,
    ask: options.ask,
    record: (record) => void audit(signDetail(record)),
    ...(options.deadlineMs === undefined ? {} : { deadlineMs: options.deadlineMs }),
  });
  await server.listen(socket, metadata.uid);
  return { socket, close: () => server.close() };
}

/**
 * The agent's keys: files (host paths, expanded at up) read as the user's own, and fingerprints
 * relayed to the user's agent at the socket up, start or reset recorded (and checked).
 */
async function resolveKeys(metadata: SandboxMetadata): Promise<AgentKey[]> {
  const fingerprints = relayedFingerprints(metadata.sshAgent);
  const files = await Promise.all(
    (metadata.sshAgent?.keys ?? [])
      .filter((entry) => !fingerprints.includes(entry))
      .map((path) => readKeyFile(path, metadata.uid)),
  );
  if (fingerprints.length === 0) return files;
  const upstreamSocket = metadata.sshAgent?.upstreamSocket;
  if (upstreamSocket === undefined)
    throw new SandboxError(
      `sshAgent names keys by fingerprint (${fingerprints.join(", ")}), which are relayed to your own agent, and no SSH_AUTH_SOCK was recorded: start the sandbox where your agent is`,
      "usage",
    );
  const relayed = await upstreamKeys(
    { socket: upstreamSocket, uid: metadata.uid, gid: metadata.gid },
    fingerprints,
  ).catch((error: unknown) => {
    throw new SandboxError(`sshAgent: ${error instanceof Error ? error.message : String(error)}`, "usage");
  });
  return [...files, ...relayed];
}

/** One line of the audit log: the key, where the signature went, and why it was made or refused. */
export function signDetail(record: SignRecord): string {
  const key =
    record.fingerprint === ""
      ? "a key this agent does not hold"
      : `${record.fingerprint} (${escapeSandboxText(record.comment)})`;
  return `${record.signed ? "signed" : "refused"} with ${key}${record.destination === undefined ? "" : ` for ${signDestinationText(record.destination)}`}: ${record.reason}`;
}

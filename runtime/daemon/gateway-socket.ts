import { lstat } from "node:fs/promises";
import type { Op } from "../api/calls.js";
import { lookupHostUser } from "../core/host-user.js";
import { SandboxError } from "../core/errors.js";
import { socketPath } from "./protocol.js";

/**
 * The daemon's third socket, for the SSH gateway's account (`forage-ctl daemon --gateway-user`):
 * owned by that account, mode 0600 (listenPrivately), beside the user's and root's. A dedicated
 * account, not the configured user's own: a remote key holder then gets the sandboxes and nothing
 * of the user's (no home, no ~/.ssh/rc, no shell), and the daemon alone decides what it may ask.
 */
export function gatewaySocketPath(env: NodeJS.ProcessEnv = process.env): string {
  return `${env.FORAGE_RUN_DIR ?? "/run/forage"}/daemon-gateway.sock`;
}

/**
 * What the gateway account may ask: what `gateway` runs (attach, and the picker: list, create,
 * remove). Like the user's socket, `up` mounts only the configured user's directories and `exec`
 * is never root; unlike it, no SSH key and not the whole home (requireGatewayUp), and nothing else (no daemon shutdown, no logins, ports or network changes),
 * so a ForceCommand escape would gain no more than a gateway session has.
 */
const gatewayCalls: ReadonlySet<Op> = new Set<Op>(["hello", "list", "status", "up", "down", "exec", "templates"]);

/** Refuses a call the gateway account may not make. */
export function requireGatewayCall(op: Op): void {
  if (!gatewayCalls.has(op))
    throw new SandboxError(
      `"${op}" is not for the gateway account: it may list, create, remove and attach to sandboxes only`,
      "usage",
    );
}

/**
 * What the gateway account may not ask of `up`, beyond the user's socket's limits: the user's
 * private key (it would be copied into a sandbox the remote key holder then attaches to), the
 * user's keys or agent for the sandbox's SSH agent (the same keys, signing there), and the user's
 * home or a directory above it as a workspace (the whole home, ~/.ssh included), and a network
 * mode other than the template's (it may not change a sandbox's network afterwards either).
 */
export async function requireGatewayUp(
  request: {
    sshKeyPath?: string;
    sshAgent?: string[];
    sshAuthSock?: string;
    network?: string;
    workspace?: string;
    repo?: string;
    repos?: Record<string, string>;
  },
  configuredUser: string,
): Promise<void> {
  if (request.sshKeyPath !== undefined)
    throw new SandboxError(
      "the gateway account may not give a sandbox an SSH key: only the template's agentIdentity.sshKeyPath applies",
      "usage",
    );
  if (request.sshAgent !== undefined || request.sshAuthSock !== undefined) {
    throw new SandboxError(
      "the gateway account may not give a sandbox an SSH agent or keys for it: only the template's sshAgent applies",
      "usage",
    );
  }
  if (request.network !== undefined)
    throw new SandboxError(
      "the gateway account may not choose a sandbox's network: the template's mode applies",
      "usage",
    );
  const home = (await lookupHostUser(configuredUser))?.home;
  if (home === undefined) return;
  for (const path of [request.workspace, request.repo, ...Object.values(request.repos ?? {})]) {
    const dir = path === undefined ? undefined : path.replace(/(.)\/+$/, "$1");
    if (dir !== undefined && (home === dir || home.startsWith(dir === "/" ? dir : `${dir}/`))) {
      throw new SandboxError(
        `the gateway account may not mount ${path}: it holds ${configuredUser}'s whole home; choose a project directory`,
        "usage",
      );
    }
  }
}

/** The gateway account's uid: an existing account that is neither root nor the configured user. */
export async function gatewayUid(name: string, configuredUser: string): Promise<number> {
  const account = await lookupHostUser(name);
  if (account === undefined)
    throw new SandboxError(
      `gateway user "${name}" does not exist on this host: create the account (the NixOS module's services.forage.gateway does) or drop --gateway-user`,
      "config",
    );
  const configured = await lookupHostUser(configuredUser);
  // By uid, not name: an alias of the configured user's uid would be that user.
  if (account.uid === 0 || account.uid === configured?.uid) {
    throw new SandboxError(
      `gateway user "${name}" must be an account of its own, not root or the configured user (${configuredUser}): the gateway's socket is restricted to what the gateway does`,
      "config",
    );
  }
  return account.uid;
}

/**
 * The socket a client that is not root talks to: the gateway's when this process's account owns
 * it (the daemon chowned it so; its directory is root's alone), else the user's.
 */
export async function clientSocketPath(): Promise<string> {
  const gateway = gatewaySocketPath();
  const info = await lstat(gateway).catch(() => undefined);
  return info?.isSocket() === true && info.uid === process.getuid?.() ? gateway : socketPath();
}

import { chmod, stat } from "node:fs/promises";
import { join } from "node:path";
import type { AskApproval } from "../approvals/approval.js";
import type { Bind } from "../../core/bind.js";
import { packageRoot } from "../../core/package-root.js";
import type { RuntimePaths } from "../../core/paths.js";
import type { WorkspaceMount } from "../../state/metadata.js";
import { listenForPushes, type RunningGate } from "./gate-server.js";
import { repositoryGitDir } from "./gated-remotes.js";
import { createOutbox, outboxLayout, prepareGateSocketDir, removeOutbox, type OutboxLayout } from "./outbox.js";
import type { GateTarget } from "./push-decision.js";
import { LiveRemotes } from "./live-remotes.js";
import type { StandingPushes } from "./standing-pushes.js";
import { gateSocketMountDir, relayMountPath, type GatedRemote, type SandboxGatePaths } from "./sandbox-git-config.js";
import type { GateUser } from "./user-git.js";

/** The relay and hook program (native/forage-git-relay.c), built into dist/native/. */
export function relayPath(): string {
  return join(packageRoot(), "dist/native/forage-git-relay");
}

/** What a sandbox's push gate needs: whose sandbox, which workspace, the template's option, whom to ask. */
export interface PushGateRequest {
  paths: RuntimePaths;
  sandbox: string;
  workspace: WorkspaceMount;
  user: GateUser;
  /** Whom the sandbox's agent runs as: the only one (besides root) that may connect to the gate and read its remotes config. */
  agent: { uid: number; gid: number };
  /** Template pushGate.protectedBranches (null: the upstream's default branch, main and master). */
  protectedBranches: readonly string[] | null;
  ask: AskApproval;
  /** How long a push waits for an answer (default: the approvals' default deadline). */
  deadlineMs?: number;
  /** Where the sandbox's git finds the relay and socket (default: their mount points; a test on the host names host paths). */
  sandboxPaths?: SandboxGatePaths;
  /** Pushes approved `--for` or `--always` (none: every push asks), and the audit log's pen. */
  standing?: StandingPushes;
  record?: (detail: string) => void;
}

/** A started gate: the remotes it stands in for, what the sandbox needs to reach it, and its stop. */
export interface SandboxPushGate extends RunningGate {
  /** The remotes as the gate last read them. */
  remotes(): GatedRemote[];
  /**
   * Reads the remotes again if the repository's config changed since (a stat when it did not),
   * rewriting the config the sandbox's git includes. Pushes refresh too; the daemon calls this
   * every round so the sandbox's git sees a new remote before it pushes to it.
   */
  refresh(): Promise<void>;
  /** Read-only binds: the socket's directory and the relay. */
  binds: Bind[];
}

/**
 * Starts a sandbox's push gate (the integration point for the daemon, which passes its approvals
 * queue as `ask`): makes the outbox, reads the user's remotes and writes the config the sandbox's
 * git includes, and listens on the gate's socket. Stop it with `close()` (the outbox stays until
 * removePushGate, at down).
 */
export async function startSandboxPushGate(request: PushGateRequest): Promise<SandboxPushGate> {
  const layout = outboxLayout(request.paths, request.sandbox);
  const gitDir = await repositoryGitDir(request.workspace);
  // git runs as the user on the outbox: the state directory must let them pass (as managed workspaces do).
  await prepareGateSocketDir(layout);
  for (const dir of [request.paths.stateDir, request.paths.pushGateDir])
    await chmod(dir, ((await stat(dir)).mode & 0o7777) | 0o011);
  await createOutbox(layout, request.user, relayPath(), gitDir === null ? [] : [join(gitDir, "objects")]);
  const remotes = new LiveRemotes(request.user, gitDir, layout.remotesConfig, request.agent.gid, request.sandboxPaths);
  await remotes.refresh();
  const targetOf = (remote: GatedRemote): GateTarget => {
    const { sandbox, user, protectedBranches, ask, deadlineMs, standing, record } = request;
    const target: GateTarget = { sandbox, user, remote: remote.name, url: remote.url, protectedBranches, ask };
    return {
      ...target,
      ...(deadlineMs === undefined ? {} : { deadlineMs }),
      ...(standing === undefined ? {} : { standing }),
      ...(record === undefined ? {} : { record }),
    };
  };
  const running = await listenForPushes(
    layout,
    async (name) => {
      const remote = await remotes.find(name);
      return remote === undefined ? undefined : targetOf(remote);
    },
    request.agent.uid,
  );
  return {
    remotes: () => remotes.current(),
    refresh: () => remotes.refresh(),
    binds: gateBinds(layout),
    close: running.close,
  };
}

/** What the sandbox needs to reach its gate, read-only: the socket's directory and the relay. */
export function gateBinds(layout: OutboxLayout): Bind[] {
  return [
    { source: layout.socketDir, target: gateSocketMountDir, readOnly: true },
    { source: relayPath(), target: relayMountPath, readOnly: true },
  ];
}

/** Removes a sandbox's gate directory and outbox (at down, after close). */
export async function removePushGate(
  paths: RuntimePaths,
  sandbox: string,
  owner: { uid: number; gid: number },
): Promise<void> {
  await removeOutbox(outboxLayout(paths, sandbox), owner);
}

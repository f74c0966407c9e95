import { chmod, stat } from "node:fs/promises";
import { join } from "node:path";
import type { AskApproval } from "../approvals/approval.js";
import type { Bind } from "../core/bind.js";
import { packageRoot } from "../core/package-root.js";
import type { RuntimePaths } from "../core/paths.js";
import type { WorkspaceMount } from "../state/metadata.js";
import { listenForPushes, type RunningGate } from "./gate-server.js";
import { gatedRemotes, repositoryGitDir } from "./gated-remotes.js";
import { createOutbox, outboxLayout, prepareGateSocketDir, removeOutbox, type OutboxLayout } from "./outbox.js";
import type { GateTarget } from "./push-decision.js";
import { gateSocketMountDir, relayMountPath, sandboxGitConfig, type GatedRemote } from "./sandbox-git-config.js";
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
  /** Template pushGate.protectedBranches (null: the upstream's default branch). */
  protectedBranches: readonly string[] | null;
  ask: AskApproval;
  /** How long a push waits for an answer (default: the approvals' default deadline). */
  deadlineMs?: number;
}

/** A started gate: the remotes it stands in for, what the sandbox needs to reach it, and its stop. */
export interface SandboxPushGate extends RunningGate {
  remotes: GatedRemote[];
  /** Read-only binds: the socket's directory and the relay. */
  binds: Bind[];
  /** The sandbox's git config (home-relative `.config/git/config`) that sends pushes here. */
  gitConfig: string;
}

/**
 * Starts a sandbox's push gate (the integration point for the daemon, which passes its approvals
 * queue as `ask`): makes the outbox, reads the user's remotes, and listens on the gate's socket.
 * Stop it with `close()` (the outbox stays until removePushGate, at down).
 */
export async function startSandboxPushGate(request: PushGateRequest): Promise<SandboxPushGate> {
  const layout = outboxLayout(request.paths, request.sandbox);
  const gitDir = await repositoryGitDir(request.workspace);
  const remotes = gitDir === null ? [] : await gatedRemotes(request.user, gitDir);
  // git runs as the user on the outbox: the state directory must let them pass (as managed workspaces do).
  await prepareGateSocketDir(layout);
  for (const dir of [request.paths.stateDir, request.paths.pushGateDir]) await chmod(dir, ((await stat(dir)).mode & 0o7777) | 0o011);
  await createOutbox(layout, request.user, relayPath(), gitDir === null ? [] : [join(gitDir, "objects")]);
  const targets = new Map<string, GateTarget>();
  for (const remote of remotes) {
    const target: GateTarget = { sandbox: request.sandbox, user: request.user, remote: remote.name, url: remote.url, protectedBranches: request.protectedBranches, ask: request.ask };
    targets.set(remote.name, request.deadlineMs === undefined ? target : { ...target, deadlineMs: request.deadlineMs });
  }
  const running = await listenForPushes(layout, targets);
  return {
    remotes,
    binds: gateBinds(layout),
    gitConfig: sandboxGitConfig(remotes),
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
export async function removePushGate(paths: RuntimePaths, sandbox: string, owner: { uid: number; gid: number }): Promise<void> {
  await removeOutbox(outboxLayout(paths, sandbox), owner);
}

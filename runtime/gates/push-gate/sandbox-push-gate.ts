import type { AskApproval } from "../approvals/approval.js";
import { gateAudit } from "../shared/gate-audit.js";
import type { Bind } from "../../core/bind.js";
import type { RuntimeContext } from "../../core/context.js";
import { SandboxError } from "../../core/errors.js";
import { lookupHostUserById } from "../../core/host-user.js";
import type { RuntimePaths } from "../../core/paths.js";
import type { SandboxMetadata } from "../../state/metadata.js";
import { repositoryGitDir } from "./gated-remotes.js";
import { LiveRemotes } from "./live-remotes.js";
import { outboxLayout, prepareGateSocketDir } from "./outbox.js";
import { pushGateHomeConfig } from "./sandbox-git-config.js";
import { keepAlwaysPushed, StandingPushes } from "./standing-pushes.js";
import { gateBinds, startSandboxPushGate, type SandboxPushGate } from "./start-push-gate.js";
import type { GateUser } from "./user-git.js";

/**
 * Where the gate's git config goes in the agent's home: git reads it beside ~/.gitconfig (which
 * keeps the agent's identity), so neither file has to know of the other.
 */
export const pushGateConfigFile = ".config/git/config";

/**
 * The binds of a sandbox with a push gate (none without): the gate's socket directory, made now
 * (root's, 0755) so the container starts whether or not the gate is up yet, and the relay. The
 * daemon starts the gate itself once the sandbox runs (SandboxServices); the remotes config the
 * sandbox's git includes is written now, so no push made before the gate is up goes around it.
 */
export async function pushGateBinds(
  paths: RuntimePaths,
  metadata: Pick<SandboxMetadata, "name" | "pushGate" | "uid" | "gid" | "workspace">,
): Promise<Bind[]> {
  if (metadata.pushGate === null) return [];
  const layout = outboxLayout(paths, metadata.name);
  await prepareGateSocketDir(layout);
  await new LiveRemotes(
    await gateUser(metadata.uid),
    await repositoryGitDir(metadata.workspace),
    layout.remotesConfig,
    metadata.gid,
  ).refresh();
  return gateBinds(layout);
}

/**
 * The agent's home files for the gate: a git config that only includes the remotes config the
 * gate keeps current in its socket directory (LiveRemotes), so remotes added later are gated
 * without a reset; none without a gate. Sandboxes provisioned before named their remotes here
 * directly: the gate still takes those remote names.
 */
export function pushGateHomeFiles(metadata: {
  pushGate?: SandboxMetadata["pushGate"] | undefined;
}): Record<string, string> {
  if (metadata.pushGate === null || metadata.pushGate === undefined) return {};
  return { [pushGateConfigFile]: pushGateHomeConfig() };
}

/**
 * Starts the push gate of a running sandbox whose metadata asks for one (null without): its
 * outbox made afresh, its socket listening in the directory the sandbox has bound, every push
 * that may be approved asked through `ask`. The caller closes it when the sandbox stops.
 */
export async function startPushGateFor(
  context: Pick<RuntimeContext, "paths">,
  metadata: SandboxMetadata,
  ask: AskApproval,
  deadlineMs?: number,
): Promise<SandboxPushGate | null> {
  if (metadata.pushGate === null) return null;
  const audit = gateAudit(context.paths, metadata.name, "push");
  return startSandboxPushGate({
    paths: context.paths,
    sandbox: metadata.name,
    workspace: metadata.workspace,
    user: await gateUser(metadata.uid),
    agent: { uid: metadata.uid, gid: metadata.gid },
    protectedBranches: metadata.pushGate.protectedBranches,
    ask,
    ...(deadlineMs === undefined ? {} : { deadlineMs }),
    standing: new StandingPushes(metadata.pushGate.alwaysPushed ?? [], (pushed) =>
      keepAlwaysPushed(context.paths, metadata.name, pushed),
    ),
    record: (detail) => void audit(detail),
  });
}

/** The sandbox's host user, whose git pushes upstream. */
async function gateUser(uid: number): Promise<GateUser> {
  const user = await lookupHostUserById(uid);
  if (user === undefined) throw new SandboxError(`push gate: no host user with uid ${uid}`, "config");
  return user;
}

import { defaultApprovalDeadlineMs, isApproved, type AskApproval, type PushSubject } from "../approvals/approval.js";
import { protectedRefsOf, refusal } from "./push-policy.js";
import { isAncestor, isCommit, pushedCommits, pushUpstream, type PushObjects } from "./pushed-commits.js";
import { refNameProblem } from "./ref-name.js";
import type { StandingPushes } from "./standing-pushes.js";
import type { RefUpdate } from "./ref-update.js";
import { upstreamState, type UpstreamState } from "./upstream-state.js";
import { lastWords, type GateUser } from "./user-git.js";

/** What one gate stands in for: the sandbox, the user's remote, and whom to ask. */
export interface GateTarget {
  sandbox: string;
  user: GateUser;
  remote: string;
  url: string;
  /** Template pushGate.protectedBranches; null: the upstream's default branch, main and master (protectedRefsOf). */
  protectedBranches: readonly string[] | null;
  ask: AskApproval;
  deadlineMs?: number;
  /** Pushes approved beyond their request (`--for`, `--always`): covered ones go unasked. None: every push asks. */
  standing?: StandingPushes;
  /** Writes a line to the sandbox's audit log (a push that went unasked, an `always` that could not be kept). */
  record?: (detail: string) => void;
}

/** The gate's answer to one hook: whether git may go on (pre-receive) or the ref went upstream (update), and the lines for the pusher. */
export interface GateVerdict {
  accepted: boolean;
  lines: string[];
}

const prefix = "forage push gate";

/**
 * pre-receive's half: every update of the push is checked against the upstream as it is now, and
 * one refused refuses the whole push, nothing asked. Accepted, git goes on to run the update hook
 * for each ref (decideUpdate).
 */
export async function checkPush(
  target: GateTarget,
  objects: PushObjects,
  updates: readonly RefUpdate[],
): Promise<GateVerdict> {
  const upstream = await readUpstream(target);
  if ("error" in upstream) return { accepted: false, lines: [upstream.error] };
  const protectedRefs = protectedRefsOf(target.protectedBranches, upstream.state.defaultBranch);
  const refused: string[] = [];
  for (const update of updates) {
    const reason = await refusalOf(target, objects, update, upstream.state, protectedRefs);
    if (reason !== null) refused.push(`error: ${prefix}: ${update.ref}: refused: ${reason}`);
  }
  if (refused.length > 0)
    return { accepted: false, lines: [...refused, `error: ${prefix}: nothing was pushed to ${target.remote}`] };
  return { accepted: true, lines: [] };
}

/**
 * The update hook's half, one ref: checked again against the upstream as it is now (asking for an
 * earlier ref may have taken minutes), asked of the human and, once approved, pushed upstream as
 * the user. Accepted only when it went upstream: git then says "ok" for this ref alone. The lines
 * say what happened in words the agent can act on; errors start with "error:".
 */
export async function decideUpdate(target: GateTarget, objects: PushObjects, update: RefUpdate): Promise<GateVerdict> {
  const upstream = await readUpstream(target);
  if ("error" in upstream) return { accepted: false, lines: [upstream.error] };
  const reason = await refusalOf(
    target,
    objects,
    update,
    upstream.state,
    protectedRefsOf(target.protectedBranches, upstream.state.defaultBranch),
  );
  if (reason !== null || update.new === null)
    return { accepted: false, lines: [`error: ${prefix}: ${update.ref}: refused: ${reason ?? "a deletion"}`] };
  const said = await askAndPush(target, objects, { ...update, new: update.new }, upstream.state);
  return { accepted: said.pushed, lines: [said.line] };
}

async function readUpstream(target: GateTarget): Promise<{ state: UpstreamState } | { error: string }> {
  try {
    return { state: await upstreamState(target.user, target.url) };
  } catch (error) {
    return { error: `error: ${prefix}: ${target.remote}: ${(error as Error).message}` };
  }
}

async function refusalOf(
  target: GateTarget,
  objects: PushObjects,
  update: RefUpdate,
  upstream: UpstreamState,
  protectedRefs: readonly string[],
): Promise<string | null> {
  const nameProblem = await refNameProblem(update.ref, target.user);
  if (nameProblem !== null || update.new === null)
    return refusal({
      ref: update.ref,
      to: update.new,
      from: null,
      nameProblem,
      toIsCommit: false,
      fastForward: false,
      protectedRefs,
    });
  const from = upstream.heads.get(update.ref) ?? null;
  const toIsCommit = await isCommit(target.user, objects, update.new);
  const fastForward = from !== null && toIsCommit && (await isAncestor(target.user, objects, from, update.new));
  return refusal({ ref: update.ref, to: update.new, from, nameProblem, toIsCommit, fastForward, protectedRefs });
}

async function askAndPush(
  target: GateTarget,
  objects: PushObjects,
  update: RefUpdate & { new: string },
  upstream: UpstreamState,
): Promise<{ pushed: boolean; line: string }> {
  const from = upstream.heads.get(update.ref) ?? null;
  const carried = await pushedCommits(target.user, objects, from, update.new, [...upstream.heads.values()]);
  const subject: PushSubject = {
    remote: target.remote,
    url: target.url,
    ref: update.ref,
    from,
    to: update.new,
    ...carried,
  };
  const deadlineMs = target.deadlineMs ?? defaultApprovalDeadlineMs;
  const range = `${from === null ? "(new branch)" : from.slice(0, 12)}..${update.new.slice(0, 12)}`;
  const pushedRef = { url: target.url, ref: update.ref };
  const earlier = target.standing?.covers(pushedRef) ?? null;
  const answer = earlier ?? (await target.ask({ sandbox: target.sandbox, kind: "push", subject, deadlineMs }));
  if (answer.decision === "expired")
    return {
      pushed: false,
      line: `error: ${prefix}: ${update.ref}: nobody answered within ${Math.round(deadlineMs / 1000)} s: not pushed (push again to ask again)`,
    };
  if (!isApproved(answer))
    return { pushed: false, line: `error: ${prefix}: ${update.ref}: denied by the user: not pushed` };
  const unkept = earlier === null ? await target.standing?.answered(pushedRef, answer) : null;
  if (typeof unkept === "string") target.record?.(`${target.remote} ${update.ref} (${target.url}): ${unkept}`);
  const pushed = await pushUpstream(target.user, objects, target.url, update.new, update.ref);
  if (pushed.exitCode !== 0)
    return {
      pushed: false,
      line: `error: ${prefix}: ${update.ref}: approved, but the upstream refused it: ${lastWords(pushed)}`,
    };
  if (earlier === null)
    return {
      pushed: true,
      line: `${prefix}: ${update.ref}: approved and pushed to ${target.remote} as ${target.user.name} (${range})`,
    };
  const standing =
    earlier.decision === "always"
      ? "approved --always for this ref"
      : `approved --for this ref until ${new Date(earlier.untilMs).toISOString()}`;
  target.record?.(`${target.remote} ${update.ref} ${range} (${target.url}): pushed without asking (${standing})`);
  return {
    pushed: true,
    line: `${prefix}: ${update.ref}: pushed to ${target.remote} as ${target.user.name} without asking: ${standing} (${range})`,
  };
}

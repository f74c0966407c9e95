import type { ApprovalDecision } from "../approvals/approval.js";
import type { RuntimePaths } from "../../core/paths.js";
import { changeMetadata } from "../../state/change-metadata.js";

/** A branch at a URL: what a push approved beyond its request covers (the remote's name may be re-pointed; the URL may not). */
export interface PushedRef {
  url: string;
  ref: string;
}

/** Refs a sandbox's metadata may keep as approved `--always` (the schema's limit). */
const maxKept = 256;
/** Lock wait for writing one down: the sandbox's lifecycle lock may be held by a stop that waits for this gate. */
const lockWaitSeconds = 10;

/**
 * The pushes a human approved beyond the request they saw (approval-answers.ts): `for` a while,
 * in this gate's memory (a gate started again asks again), or `always`, kept in the sandbox's
 * metadata (pushGate.alwaysPushed, which `forage-ctl status` shows) through `keep`. Either covers
 * later updates of the same ref at the same URL; the gate's refusals (force, deletion, protected
 * branch) come first and are never covered.
 */
export class StandingPushes {
  private readonly until = new Map<string, number>();

  constructor(
    kept: readonly PushedRef[],
    private readonly keep: (pushed: PushedRef) => Promise<boolean>,
    private readonly now: () => number = Date.now,
  ) {
    for (const pushed of kept) this.until.set(keyOf(pushed), Infinity);
  }

  /** How an update of `pushed` is covered without asking (`always`, or `for` until a time), or null. */
  covers(pushed: PushedRef): { decision: "always" } | { decision: "for"; untilMs: number } | null {
    const untilMs = this.until.get(keyOf(pushed)) ?? 0;
    if (untilMs === Infinity) return { decision: "always" };
    return untilMs > this.now() ? { decision: "for", untilMs } : null;
  }

  /** Remembers what the human's answer covers beyond this push; says when an `always` could not be kept. */
  async answered(pushed: PushedRef, answer: ApprovalDecision): Promise<string | null> {
    if (answer.decision === "for")
      this.until.set(keyOf(pushed), Math.max(answer.untilMs, this.until.get(keyOf(pushed)) ?? 0));
    if (answer.decision !== "always") return null;
    if (!(await this.keep(pushed)))
      return "approved always, but the sandbox's settings could not keep it: the next push of this ref asks again";
    this.until.set(keyOf(pushed), Infinity);
    return null;
  }
}

/**
 * Writes `pushed` into the sandbox's pushGate.alwaysPushed under its lifecycle lock (as
 * `forage-ctl network --allow` writes its allowlist); false when the sandbox or its gate is gone,
 * the list is full, or the lock could not be had.
 */
export function keepAlwaysPushed(paths: RuntimePaths, sandbox: string, pushed: PushedRef): Promise<boolean> {
  return changeMetadata(paths, sandbox, lockWaitSeconds, (metadata) => {
    const gate = metadata.pushGate;
    if (gate === null) return false;
    const kept = gate.alwaysPushed ?? [];
    if (kept.some((each) => keyOf(each) === keyOf(pushed))) return true;
    return (
      kept.length < maxKept && {
        ...metadata,
        pushGate: { ...gate, alwaysPushed: [...kept, { url: pushed.url, ref: pushed.ref }] },
      }
    );
  });
}

function keyOf(pushed: PushedRef): string {
  return JSON.stringify([pushed.url, pushed.ref]);
}

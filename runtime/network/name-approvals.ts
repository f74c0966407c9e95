import { parseAllowEntry } from "../../generator/model/allow-rule.js";
import type { AllowRule } from "../../generator/model/model.js";
import { allowEntry } from "../../generator/config/schema/allow-entry.js";
import { isApproved, type ApprovalDecision, type AskApproval } from "../approvals/approval.js";

/** How long a name nobody answered for stays refused without asking again (its client retries). */
const expiredQuietMs = 5 * 60_000;
/** Names admitted once per sandbox run; past this, a sandbox must be given an allowlist. */
const maxAdmitted = 512;
/** Questions one sandbox may have open at once: a sandbox asking about random names must not flood the human. */
const maxPending = 8;

export interface NameApprovalsDeps {
  sandbox: string;
  ask: AskApproval;
  /** Adds the name to the sandbox's own allowlist (its metadata) for `always`; false when it could not. */
  persist: (name: string) => Promise<boolean>;
  /** Called when the admitted names change: the guard rebuilds the policy its filter and gate read. */
  changed: () => void;
  log: (line: string) => void;
  now?: () => number;
}

/**
 * A sandbox's answers about names outside its allowlist (network ask mode): one question per name
 * at a time (a client asking again while it waits joins it), names admitted for this run (`once`,
 * and `always` besides being written to the sandbox's allowlist), and refusals remembered so a
 * retrying client does not ask again: a denial for the run, an unanswered question for a few
 * minutes. The name gate (sni) reads the same admitted names through the guard's policy.
 */
export class NameApprovals {
  private readonly pending = new Map<string, Promise<string | null>>();
  private readonly admitted = new Map<string, AllowRule>();
  /** The admitted names also written to the sandbox's allowlist (`always`): they outlive the run. */
  private readonly kept = new Set<string>();
  private readonly refused = new Map<string, { rule: string; untilMs: number }>();
  private readonly now: () => number;

  constructor(private readonly deps: NameApprovalsDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Allow rules for the names admitted this run (exact names, any port). */
  rules(): AllowRule[] {
    return [...this.admitted.values()];
  }

  /** The admitted names that last only for this run (`once`, or an `always` that could not be written). */
  forThisRun(): string[] {
    return [...this.admitted.keys()].filter((name) => !this.kept.has(name));
  }

  /** Resolves with null once `name` is admitted, or with the rule that refused it. */
  decide(name: string): Promise<string | null> {
    if (this.admitted.has(name)) return Promise.resolve(null);
    const refusal = this.refused.get(name);
    if (refusal !== undefined && refusal.untilMs > this.now()) return Promise.resolve(refusal.rule);
    const waiting = this.pending.get(name);
    if (waiting !== undefined) return waiting;
    // Only an exact host name that could go on an allowlist is worth a question: a query for
    // "*.example.org" (a legal DNS label) must not become a wildcard, nor "x:443" a port rule.
    if (!/^[a-z0-9.-]+$/.test(name) || !allowEntry.safeParse(name).success) return Promise.resolve("ask: not a host name");
    if (this.pending.size >= maxPending) return Promise.resolve(`ask: ${maxPending} questions already open`);
    const asked = this.ask(name).finally(() => this.pending.delete(name));
    this.pending.set(name, asked);
    return asked;
  }

  private async ask(name: string): Promise<string | null> {
    if (this.admitted.size >= maxAdmitted) return `ask: ${maxAdmitted} names already admitted this run (add them to the allowlist)`;
    const answer = await this.deps.ask({ sandbox: this.deps.sandbox, kind: "host", subject: { name } }).catch((error: Error): ApprovalDecision => {
      this.deps.log(`asking about ${name} failed: ${error.message}`);
      return { decision: "expired" };
    });
    if (!isApproved(answer)) {
      const rule = answer.decision === "deny" ? "denied when asked" : "not answered when asked";
      this.refused.set(name, { rule, untilMs: answer.decision === "deny" ? Infinity : this.now() + expiredQuietMs });
      return rule;
    }
    this.refused.delete(name);
    this.admitted.set(name, parseAllowEntry(name));
    this.deps.changed();
    if (answer.decision === "always") {
      if (await this.deps.persist(name)) this.kept.add(name);
      else this.deps.log(`${name} was approved always but could not be added to the allowlist: admitted for this run only`);
      this.deps.changed(); // the status says which names last
    }
    return null;
  }
}

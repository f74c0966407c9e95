import type { ApprovalAsk, ApprovalDecision, AskApproval } from "../../../../runtime/gates/approvals/approval.js";

/** What the desk does with an ask: answer it now, or leave it unanswered until its deadline. */
export type DeskPolicy = (ask: ApprovalAsk) => ApprovalDecision | "wait";

/**
 * A small approvals queue for tests, standing in for the daemon's (being built beside this): it
 * records every ask, answers it through a policy that inspects it, and expires what the policy
 * leaves waiting at the ask's deadline, as the real queue does.
 */
export class ApprovalDesk {
  readonly asks: ApprovalAsk[] = [];
  policy: DeskPolicy = () => "wait";

  readonly ask: AskApproval = (ask) => {
    this.asks.push(ask);
    const answer = this.policy(ask);
    if (answer !== "wait") return Promise.resolve(answer);
    return new Promise((resolve) => setTimeout(() => resolve({ decision: "expired" }), ask.deadlineMs ?? 30_000));
  };
}

import type { ApprovalAsk, ApprovalDecision, AskApproval } from "../../runtime/gates/approvals/approval.js";

/** One ask waiting in the queue, and how to answer it. */
export interface PendingAsk {
  ask: ApprovalAsk;
  answer(decision: ApprovalDecision): void;
}

/**
 * A small approvals queue of the test's own: every ask waits until the test takes it with
 * `next()`, looks at what is asked, and answers it, as a human at `forage-ctl approve` would.
 * Nothing is approved unless the test says so; `asks` keeps every ask in order.
 */
export class TestApprovalQueue {
  readonly asks: ApprovalAsk[] = [];
  private readonly waiting: PendingAsk[] = [];
  private readonly takers: ((pending: PendingAsk) => void)[] = [];

  readonly ask: AskApproval = (ask) =>
    new Promise<ApprovalDecision>((resolve) => {
      this.asks.push(ask);
      const pending = { ask, answer: resolve };
      const taker = this.takers.shift();
      if (taker === undefined) this.waiting.push(pending);
      else taker(pending);
    });

  /** The oldest ask not taken yet, waiting for one when none is there. */
  next(): Promise<PendingAsk> {
    const pending = this.waiting.shift();
    return pending === undefined ? new Promise((resolve) => this.takers.push(resolve)) : Promise.resolve(pending);
  }

  /** Asks not taken yet. */
  get pending(): number {
    return this.waiting.length;
  }
}

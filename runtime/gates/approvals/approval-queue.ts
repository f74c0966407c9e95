import { SandboxError } from "../../core/errors.js";
import { defaultApprovalDeadlineMs, type ApprovalAsk, type ApprovalDecision, type AskApproval } from "./approval.js";
import { requestRefusal } from "./approval-answers.js";
import { newApprovalId } from "./approval-id.js";
import { decisionText, subjectSummary, type ApprovalView, type HumanDecision } from "./approval-view.js";

/** The audit events the queue writes: one when a request is queued, one when it is answered or expires. */
export type ApprovalAuditKind = "approval-asked" | "approval-answered";

export interface ApprovalQueueOptions {
  /** Appends an event to the sandbox's audit log (recordEvent); its failures are logged, never thrown. */
  audit: (sandbox: string, event: ApprovalAuditKind, detail: string) => Promise<void>;
  /** Told of each new request (not of an ask coalesced onto one): the notifications. Not awaited. */
  onQueued?: (request: ApprovalView) => void;
  log?: (line: string) => void;
  /** A request's deadline when its asker names none (default: defaultApprovalDeadlineMs). */
  defaultDeadlineMs?: number;
  /** Requests one sandbox may have pending; beyond it an ask expires at once (a flood is no way to bury the human). */
  maxPendingPerSandbox?: number;
  newId?: () => string;
}

/** The longest a request may wait (a push under review may take a while; a day is plenty). */
export const maxApprovalDeadlineMs = 24 * 60 * 60 * 1000;

/** The longest `approve --for`: a day (a key approved for longer is a key given away). */
export const maxApprovalForMs = 24 * 60 * 60 * 1000;

interface Entry {
  id: string;
  key: string;
  ask: ApprovalAsk;
  createdMs: number;
  deadlineMs: number;
  answer: Promise<ApprovalDecision>;
  settle: (answer: ApprovalDecision) => void;
  timer: NodeJS.Timeout;
}

/**
 * The daemon's one approvals queue (issue 16): gates ask (`ask`, an AskApproval), the human
 * lists (`pending`) and answers (`answer`); a request nobody answers by its deadline resolves
 * `expired`, a denial. An ask for what is already pending (same sandbox, kind and subject: a DNS
 * client retrying a name) waits for that request's answer instead of queuing another. Every
 * request and its answer go to the sandbox's audit log. What an answer means beyond this request
 * (`always` for a host, `for` a key) is the asker's to keep.
 */
export class ApprovalQueue {
  private readonly byId = new Map<string, Entry>();
  private readonly byKey = new Map<string, Entry>();
  private audits: Promise<void> = Promise.resolve();

  constructor(private readonly options: ApprovalQueueOptions) {}

  /** Queues `ask` (or joins the same pending one) and resolves with its answer; never rejects. */
  readonly ask: AskApproval = (ask) => {
    const key = requestKey(ask);
    // Two tool calls with the same arguments are two calls: one answer "once" must not run both.
    const pending = ask.kind === "mcp-call" ? undefined : this.byKey.get(key);
    if (pending !== undefined) return pending.answer;
    const limit = this.options.maxPendingPerSandbox ?? 64;
    if ([...this.byId.values()].filter((entry) => entry.ask.sandbox === ask.sandbox).length >= limit) {
      this.record(
        ask.sandbox,
        "approval-answered",
        `${ask.kind} ${subjectSummary(ask)}: expired at once (${limit} requests of this sandbox already pending)`,
      );
      return Promise.resolve({ decision: "expired" });
    }
    const entry = this.enqueue(ask, key);
    this.record(
      ask.sandbox,
      "approval-asked",
      `${entry.id} ${ask.kind} ${subjectSummary(ask)} (deadline ${Math.round((entry.deadlineMs - entry.createdMs) / 1000)} s)`,
    );
    try {
      this.options.onQueued?.(view(entry));
    } catch (error) {
      this.options.log?.(`approval ${entry.id}: notification failed: ${String(error)}`);
    }
    return entry.answer;
  };

  /** The pending requests, oldest first. */
  pending(): ApprovalView[] {
    return [...this.byId.values()].sort((a, b) => a.createdMs - b.createdMs || a.id.localeCompare(b.id)).map(view);
  }

  /**
   * Answers request `id` (any case) for everyone waiting on it; `by` names who answered (for the
   * audit log). Throws a user error naming `forage-ctl approvals` when no such request is pending,
   * and a usage error, leaving the request pending, when it refuses the way it is approved (approval-answers.ts).
   */
  answer(id: string, decision: HumanDecision, by: string): ApprovalView {
    const entry = this.byId.get(id.toLowerCase());
    if (entry === undefined)
      throw new SandboxError(
        `no pending approval "${id}" (answered, expired, or never asked): see forage-ctl approvals`,
        "general",
      );
    const refusal = decision.decision === "deny" ? null : requestRefusal(entry.ask, decision.decision);
    if (refusal !== null) throw new SandboxError(`${entry.id}: ${refusal}`, "usage");
    this.settle(entry, decision, `by ${by}`);
    return view(entry);
  }

  /** Expires every pending request (the daemon stopping: nobody is left to answer them). */
  close(): void {
    for (const entry of [...this.byId.values()]) this.settle(entry, { decision: "expired" }, "as the daemon stopped");
  }

  /** Resolves when the audit events written so far are on disk. */
  flush(): Promise<void> {
    return this.audits;
  }

  private enqueue(ask: ApprovalAsk, key: string): Entry {
    const createdMs = Date.now();
    const wait = Math.min(
      Math.max(ask.deadlineMs ?? this.options.defaultDeadlineMs ?? defaultApprovalDeadlineMs, 1),
      maxApprovalDeadlineMs,
    );
    let id = (this.options.newId ?? newApprovalId)();
    while (this.byId.has(id)) id = newApprovalId();
    let settle: (answer: ApprovalDecision) => void = () => undefined;
    const answer = new Promise<ApprovalDecision>((resolve) => (settle = resolve));
    const entry: Entry = {
      id,
      key,
      ask,
      createdMs,
      deadlineMs: createdMs + wait,
      answer,
      settle,
      timer: setTimeout(() => this.settle(entry, { decision: "expired" }, "at its deadline"), wait),
    };
    // The daemon's sockets keep it alive; a pending deadline alone need not.
    entry.timer.unref();
    this.byId.set(id, entry);
    this.byKey.set(key, entry);
    return entry;
  }

  private settle(entry: Entry, answer: ApprovalDecision, how: string): void {
    if (this.byId.get(entry.id) !== entry) return;
    clearTimeout(entry.timer);
    this.byId.delete(entry.id);
    this.byKey.delete(entry.key);
    entry.settle(answer);
    this.record(
      entry.ask.sandbox,
      "approval-answered",
      `${entry.id} ${entry.ask.kind} ${subjectSummary(entry.ask)}: ${decisionText(answer)} ${how}`,
    );
  }

  /** Audit events in the order they happened (each waits for the one before). */
  private record(sandbox: string, event: ApprovalAuditKind, detail: string): void {
    this.audits = this.audits
      .then(() => this.options.audit(sandbox, event, detail))
      .catch((error: unknown) =>
        this.options.log?.(
          `audit log of ${sandbox}: ${event} not written: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
  }
}

/** What makes two asks the same request: sandbox, kind and subject (its keys in order). */
function requestKey(ask: ApprovalAsk): string {
  return JSON.stringify([ask.sandbox, ask.kind, canonical(ask.subject)]);
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, field]) => [name, canonical(field)]),
  );
}

function view(entry: Entry): ApprovalView {
  const { deadlineMs: _asked, ...asked } = entry.ask;
  return {
    id: entry.id,
    ...asked,
    summary: subjectSummary(entry.ask),
    createdAt: new Date(entry.createdMs).toISOString(),
    deadlineAt: new Date(entry.deadlineMs).toISOString(),
  };
}

import type { ApprovalAsk, ApprovalDecision, ApprovalKind } from "./approval.js";

/**
 * A pending request as `forage-ctl approvals --json` shows it: plain JSON (times as ISO strings).
 * Every field but the id and the times comes from a sandbox: print it escaped (escapeControl).
 *
 * @example {"id":"k7q2xm","sandbox":"fix-42","kind":"host","subject":{"name":"pypi.example"},"summary":"pypi.example","createdAt":"2026-11-21T10:00:00.000Z","deadlineAt":"2026-11-21T10:00:30.000Z"}
 */
export type ApprovalView = Asked & {
  id: string;
  /** One line saying what is asked (subjectSummary), for tables and notifications. */
  summary: string;
  createdAt: string;
  deadlineAt: string;
};

/** What is asked, by whom: sandbox, kind and subject (still discriminated by kind). */
export type Asked = ApprovalAsk extends infer A ? (A extends ApprovalAsk ? Pick<A, "sandbox" | "kind" | "subject"> : never) : never;

/** An answer a human gives (`expired` is the deadline's, never a human's). */
export type HumanDecision = Exclude<ApprovalDecision, { decision: "expired" }>;

/**
 * One line saying what is asked, e.g. `pypi.example:443`, `origin refs/heads/fix 1a2b3c4..5d6e7f8
 * (3 commits)`, `SHA256:abc… (me@laptop) → git@forge.example`. Never a secret: subjects carry none.
 */
export function subjectSummary(ask: Asked): string {
  switch (ask.kind) {
    case "host":
      return ask.subject.port === undefined ? ask.subject.name : `${ask.subject.name}:${ask.subject.port}`;
    case "push": {
      const { remote, ref, from, to, commits } = ask.subject;
      const range = from === null ? `new ${short(to)}` : `${short(from)}..${short(to)}`;
      return `${remote} ${ref} ${range} (${commits.length} commit${commits.length === 1 ? "" : "s"})`;
    }
    case "ssh-sign": {
      const { fingerprint, comment, destination } = ask.subject;
      return `${fingerprint} (${comment})${destination === undefined ? "" : ` → ${destination}`}`;
    }
  }
}

/** How a decision reads in the audit log and the CLI: `once`, `for 10m (until …)`, `deny`. */
export function decisionText(answer: ApprovalDecision): string {
  return answer.decision === "for" ? `for until ${new Date(answer.untilMs).toISOString()}` : answer.decision;
}

const short = (commit: string): string => commit.slice(0, 12);

/** The kinds, in the order listings group them. */
export const approvalKinds: readonly ApprovalKind[] = ["host", "push", "ssh-sign"];

/** The one escaper of approval text under its earlier name (sandbox-text.ts), for code written against it. */
export { escapeSandboxText as escapeControl } from "./sandbox-text.js";

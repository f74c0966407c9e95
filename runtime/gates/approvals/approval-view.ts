import type { ApprovalAsk, ApprovalDecision, ApprovalKind } from "./approval.js";
import { cutShown, escapeSandboxText, quoteSandboxText } from "../shared/agent-text.js";
import { signDestinationText } from "./sign-destination-text.js";

/**
 * A pending request as `forage-ctl approvals --json` shows it: plain JSON (times as ISO strings).
 * Much of it comes from a sandbox (approval.ts says which): print it through agent-text.ts; the
 * summary is already shown text (escaped), never to be escaped again.
 *
 * @example {"id":"k7q2xm","sandbox":"fix-42","kind":"host","subject":{"name":"pypi.example"},"summary":"pypi.example","createdAt":"2026-11-21T10:00:00.000Z","deadlineAt":"2026-11-21T10:00:30.000Z"}
 */
export type ApprovalView = Asked & {
  id: string;
  /** One line saying what is asked (subjectSummary): shown text, the sandbox's parts escaped. */
  summary: string;
  createdAt: string;
  deadlineAt: string;
};

/** What is asked, by whom: sandbox, kind and subject (still discriminated by kind). */
export type Asked = ApprovalAsk extends infer A
  ? A extends ApprovalAsk
    ? Pick<A, "sandbox" | "kind" | "subject">
    : never
  : never;

/** An answer a human gives (`expired` is the deadline's, never a human's). */
export type HumanDecision = Exclude<ApprovalDecision, { decision: "expired" }>;

/**
 * One line saying what is asked, as shown text: the sandbox's parts escaped (agent-text.ts), its
 * free text quoted, e.g. `pypi.example:443`, `pypi.example:443 at 2 addresses, 1 new` (a name approved
 * before answering with others), `origin refs/heads/fix 1a2b3c4..5d6e7f8 (3 commits)`,
 * `SHA256:abc… (me@laptop) → ssh login as "git"`. Cut to `width` characters where a table or a
 * notification has no more room, each kind keeping what matters: a host name its end (its domain),
 * a push its remote, range and count (the ref gives way), a signature its key. Never a secret:
 * subjects carry none.
 */
export function subjectSummary(ask: Asked, width = Infinity): string {
  switch (ask.kind) {
    case "host": {
      const { name, port, addresses, approved = [] } = ask.subject;
      const fresh = addresses?.filter((address) => !approved.includes(address)).length ?? 0;
      // A re-pointed name says so: the same name approved before now answers with other addresses.
      const tail =
        addresses === undefined
          ? ""
          : ` at ${addresses.length} address${addresses.length === 1 ? "" : "es"}, ${fresh} new`;
      return `${cutShown(`${escapeSandboxText(name)}${port === undefined ? "" : `:${port}`}`, Math.max(width - tail.length, 24), "end")}${tail}`;
    }
    case "push": {
      const { remote, ref, from, to, commitCount } = ask.subject;
      const range = escapeSandboxText(from === null ? `new ${short(to)}` : `${short(from)}..${short(to)}`);
      const head = `${escapeSandboxText(remote)} `;
      const tail = ` ${range} (${commitCount} commit${commitCount === 1 ? "" : "s"})`;
      return `${head}${cutShown(escapeSandboxText(ref), Math.max(width - head.length - tail.length, 24), "ends")}${tail}`;
    }
    case "mcp-call": {
      const { server, tool, arguments: args } = ask.subject;
      const head = `${escapeSandboxText(server)}: ${quoteSandboxText(tool)} `;
      return `${head}${cutShown(quoteSandboxText(args), Math.max(width - head.length, 24), "start")}`;
    }
    case "ssh-sign": {
      const { fingerprint, comment, destination } = ask.subject;
      return cutShown(
        `${fingerprint} (${escapeSandboxText(comment)})${destination === undefined ? "" : ` → ${signDestinationText(destination)}`}`,
        width,
        "start",
      );
    }
  }
}

/** How a decision reads in the audit log and the CLI: `once`, `for 10m (until …)`, `deny`. */
export function decisionText(answer: ApprovalDecision): string {
  return answer.decision === "for" ? `for until ${new Date(answer.untilMs).toISOString()}` : answer.decision;
}

const short = (commit: string): string => commit.slice(0, 12);

/** The kinds, in the order listings group them. */
export const approvalKinds: readonly ApprovalKind[] = ["host", "push", "ssh-sign", "mcp-call"];

/** The one escaper of approval text under its earlier name (agent-text.ts), for code written against it. */
export { escapeSandboxText as escapeControl } from "../shared/agent-text.js";

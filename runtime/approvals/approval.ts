/**
 * The approvals queue's contract (issue 16): what a host-side gate asks the human, and what it is
 * told. The DNS filter (an unknown name in ask mode), the push gate and the SSH agent each ask
 * through an `AskApproval` and act on its answer; the queue in the daemon (approval-queue.ts)
 * implements it, and so can a test with a queue of its own. Every field is data shown to the human:
 * it comes from a sandbox, so answerers print it escaped, never as shell or terminal text.
 */

/** What is asked: a network name, a push, or an SSH signature. */
export type ApprovalKind = "host" | "push" | "ssh-sign";

/**
 * A name the sandbox's DNS filter holds (restricted mode with ask): an approval admits the name on
 * `port` at the addresses of the answer it is for, and nothing else (DESIGN rule 18).
 */
export interface HostSubject {
  /** Lower-case, without the trailing dot. */
  name: string;
  /** The port it would be admitted on (the DNS filter's asks name 443: a lookup names no port). */
  port?: number;
  /**
   * The addresses of the answer the request is for. Absent on the first question about a name:
   * nothing is sent upstream before the human answers (its labels would carry data out), so the
   * approval admits the addresses of the answer to the lookups it held, and only those; a later
   * answer with any other address asks again, with its addresses here.
   */
  addresses?: string[];
  /** With `addresses`: those approved for the name before (what it was admitted at until now). */
  approved?: string[];
}

/** A push the gate holds: where it would go and what it carries. */
export interface PushSubject {
  /** The user's remote (its name in the workspace's repository) and its URL as git shows it. */
  remote: string;
  url: string;
  /** Full ref name, e.g. refs/heads/feature. */
  ref: string;
  /** Commit the remote has now (null: a new branch) and the commit that would replace it. */
  from: string | null;
  to: string;
  /** One line per commit in from..to, oldest first: "<short hash> <subject>". */
  commits: string[];
  /** `git diff --stat` of from..to (or of the root commit's tree for a new branch). */
  diffstat: string;
}

/** A signature the SSH agent holds. */
export interface SshSignSubject {
  /** SHA256 fingerprint of the key asked to sign, as ssh-keygen -l shows it. */
  fingerprint: string;
  /** The key's comment (usually the file name or user@host). */
  comment: string;
  /** Where the signature goes, when the session data shows it (user@host of the server). */
  destination?: string;
}

export type ApprovalAsk =
  | { sandbox: string; kind: "host"; subject: HostSubject; deadlineMs?: number }
  | { sandbox: string; kind: "push"; subject: PushSubject; deadlineMs?: number }
  | { sandbox: string; kind: "ssh-sign"; subject: SshSignSubject; deadlineMs?: number };

/**
 * The human's answer: `once`, `for` (until `untilMs`) or `always`, each meaning what
 * approval-answers.ts says for the request's kind (a kind may refuse one); `deny`: by the human;
 * `expired`: nobody answered by the deadline, which counts as a denial.
 */
export type ApprovalDecision = { decision: "once" } | { decision: "always" } | { decision: "for"; untilMs: number } | { decision: "deny" } | { decision: "expired" };

/** Asks the human and resolves with the answer (never rejects for a denial). */
export type AskApproval = (ask: ApprovalAsk) => Promise<ApprovalDecision>;

/** Whether the answer lets the request through. */
export function isApproved(answer: ApprovalDecision): boolean {
  return answer.decision === "once" || answer.decision === "always" || answer.decision === "for";
}

/** How long a request waits for an answer unless its asker says otherwise. */
export const defaultApprovalDeadlineMs = 30_000;

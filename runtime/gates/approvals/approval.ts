/**
 * The approvals queue's contract (issue 16): what a host-side gate asks the human, and what it is
 * told. The DNS filter (an unknown name in ask mode), the push gate and the SSH agent each ask
 * through an `AskApproval` and act on its answer; the queue in the daemon (approval-queue.ts)
 * implements it, and so can a test with a queue of its own. Every field is data shown to the human,
 * much of it the sandbox's (each subject says which): every answerer prints all of it through
 * agent-text.ts, never as shell or terminal text.
 */

/** What is asked: a network name, a push, an SSH signature, or a call of an MCP server's tool. */
export type ApprovalKind = "host" | "push" | "ssh-sign" | "mcp-call";

/**
 * A name the sandbox's DNS filter holds (restricted mode with ask): an approval admits the name on
 * `port` at the addresses of the answer it is for, and nothing else (ARCHITECTURE.md rule 18). The name is
 * the sandbox's; the addresses are the upstream resolver's, checked to be addresses.
 */
export interface HostSubject {
  /** Lower-case, without the trailing dot: what the sandbox looked up. */
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

/**
 * A push the gate holds: where it would go and what it carries. The remote, its URL and `from`
 * are the host's (the user's config, the upstream); the ref, the commit subjects and the file
 * names in the diffstat are the sandbox's; `to` is the sandbox's commit, checked to be one.
 */
export interface PushSubject {
  /** The user's remote (its name in the workspace's repository) and its URL as git shows it. */
  remote: string;
  url: string;
  /** Full ref name, e.g. refs/heads/feature. */
  ref: string;
  /** Commit the remote has now (null: a new branch) and the commit that would replace it. */
  from: string | null;
  to: string;
  /** How many commits from..to carries, counted exactly (`commits` may list fewer). */
  commitCount: number;
  /**
   * Commits of from..to, oldest first, "<short hash> <subject>" (the hash git's, the subject the
   * sandbox's): every one, or for a long push the oldest and the newest with `omitted` between.
   */
  commits: string[];
  /** The commits a long list leaves out: `count` of them, after its first `after` lines. Absent: none left out. */
  omitted?: { after: number; count: number };
  /**
   * `git diff --stat` of from..to (or of the root commit's tree for a new branch): a long one keeps
   * its first files, then a line saying how many it leaves out, then git's "N files changed" line.
   */
  diffstat: string;
}

/** A signature the SSH agent holds. The key and its comment are the host's; `destination` is the sandbox's. */
export interface SshSignSubject {
  /** SHA256 fingerprint of the key asked to sign, as ssh-keygen -l shows it. */
  fingerprint: string;
  /** The key's comment (usually the file name or user@host). */
  comment: string;
  /** What the data to sign says the signature is for, when it says (sign-data.ts). */
  destination?: SignDestination;
}

/**
 * What a signature is for, as the data to sign (the sandbox's) says. Each string but `hostKey` is
 * the sandbox's own text, shown quoted: a login's user name, an SSHSIG signature's namespace and
 * hash. `hostKey` is the fingerprint forage computed of the server host key the data names.
 */
export type SignDestination =
  { kind: "ssh-login"; user: string; hostKey?: string } | { kind: "sshsig"; namespace: string; hash: string };

/**
 * A tool call the MCP gate holds (the template's policy asks about the tool). The server is the
 * template's; the tool's name and its arguments are the sandbox's: the arguments are the JSON text
 * the agent sent, whole (the gate refuses a call whose arguments are too long to show), and an
 * approval once admits this call with exactly these arguments.
 */
export interface McpCallSubject {
  /** The server's name in the template (mcp.servers). */
  server: string;
  tool: string;
  /** The call's arguments as JSON text ("{}" for none). */
  arguments: string;
}

export type ApprovalAsk =
  | { sandbox: string; kind: "host"; subject: HostSubject; deadlineMs?: number }
  | { sandbox: string; kind: "push"; subject: PushSubject; deadlineMs?: number }
  | { sandbox: string; kind: "ssh-sign"; subject: SshSignSubject; deadlineMs?: number }
  | { sandbox: string; kind: "mcp-call"; subject: McpCallSubject; deadlineMs?: number };

/**
 * The human's answer: `once`, `for` (until `untilMs`) or `always`, each meaning what
 * approval-answers.ts says for the request's kind (a kind may refuse one); `deny`: by the human;
 * `expired`: nobody answered by the deadline, which counts as a denial.
 */
export type ApprovalDecision =
  | { decision: "once" }
  | { decision: "always" }
  | { decision: "for"; untilMs: number }
  | { decision: "deny" }
  | { decision: "expired" };

/** Asks the human and resolves with the answer (never rejects for a denial). */
export type AskApproval = (ask: ApprovalAsk) => Promise<ApprovalDecision>;

/** Whether the answer lets the request through. */
export function isApproved(answer: ApprovalDecision): boolean {
  return answer.decision === "once" || answer.decision === "always" || answer.decision === "for";
}

/** How long a request waits for an answer unless its asker says otherwise. */
export const defaultApprovalDeadlineMs = 30_000;

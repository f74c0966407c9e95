import type { ApprovalKind, SignDestination } from "./approval.js";
import type { Asked } from "./approval-view.js";

/** How a human may approve: this request, for a while, or for good. */
export type ApprovalMode = "once" | "for" | "always";

export const approvalModes: readonly ApprovalMode[] = ["once", "for", "always"];

/** What one mode does for one kind, or why that kind refuses it. */
export type ModeMeaning = { does: string } | { refused: string };

/**
 * What each way of approving means for each kind of request (ARCHITECTURE.md rule 16: no flag accepted and
 * ignored). The queue refuses a mode a kind refuses before anything is answered, so the request
 * stays pending; the gates implement the rest (name-approvals.ts, push-decision.ts,
 * ssh-agent-server.ts). `forage-ctl approve --help` prints this table.
 */
export const approvalAnswers: Readonly<Record<ApprovalKind, Record<ApprovalMode | "deny", ModeMeaning>>> = {
  host: {
    once: {
      does: "admits the name on the port and at the addresses of the answer the request was for, until the sandbox stops; another address asks again",
    },
    for: {
      does: "the same, until the time is up: then its addresses leave the sandbox's sets and the next lookup asks again",
    },
    always: {
      does: "adds name:port to the sandbox's own allowlist (forage-ctl network NAME shows it; restarts keep it); like every allow entry, it follows DNS",
    },
    deny: { does: "answers the lookup NXDOMAIN; the name is not asked about again until the sandbox stops" },
  },
  push: {
    once: { does: "pushes this update of the ref, these commits, and nothing else" },
    for: {
      does: "pushes this update, and lets later fast-forwards of the same ref to the same URL through without asking until the time is up",
    },
    always: {
      does: "pushes this update, and keeps the ref and URL in the sandbox's push gate settings: later fast-forwards of it go without asking (forage-ctl status NAME shows them)",
    },
    deny: { does: "refuses this update: nothing is pushed (a later push asks again)" },
  },
  "ssh-sign": {
    once: { does: "makes this one signature" },
    for: {
      does: "lets the same key sign for the same destination (an SSH login's user and server host key, an SSHSIG's namespace) without asking until the time is up (at most 24h); refused for a request that does not show its destination in full",
    },
    always: {
      refused:
        "an SSH key that always signs is a key given away: approve it --for a while (at most 24h), or set the template's sshAgent confirm: false if signing unasked is what you want",
    },
    deny: { does: "fails this signature (a later one asks again)" },
  },
  "mcp-call": {
    once: { does: "makes this call of the tool, with these arguments (a later call asks again)" },
    for: {
      does: "makes this call, and lets later calls of the same tool of the same server through without asking, whatever their arguments, until the time is up",
    },
    always: {
      does: "makes this call, and adds the tool to the server's allow list for this sandbox: later calls go without asking while it lives (forage-ctl approvals shows no more of them)",
    },
    deny: {
      does: "refuses this call: the agent gets a tool error saying a human refused it (a later call asks again)",
    },
  },
};

/**
 * Why `kind` refuses `mode` (a user error for the answerer), or null when it takes it.
 *
 * @example modeRefusal("ssh-sign", "always") // "ssh-sign requests take --once or --for, not --always: an SSH key that always signs …"
 */
export function modeRefusal(kind: ApprovalKind, mode: ApprovalMode): string | null {
  const meaning = approvalAnswers[kind][mode];
  if (!("refused" in meaning)) return null;
  const taken = approvalModes.filter((each) => !("refused" in approvalAnswers[kind][each]));
  return `${kind} requests take ${taken.map((each) => `--${each}`).join(" or ")}, not --${mode}: ${meaning.refused}`;
}

/**
 * Why `mode` is refused for this request: its kind's refusal (modeRefusal), or for an SSH
 * signature --for one whose destination is not shown in full. The sandbox writes the data to
 * sign: a login without the server's host key (method "publickey", not OpenSSH's hostbound one)
 * or data that reads as neither a login nor an SSHSIG would let one approval for a while cover
 * signatures for any server.
 */
export function requestRefusal(ask: Asked, mode: ApprovalMode): string | null {
  const refusal = modeRefusal(ask.kind, mode);
  if (refusal !== null || ask.kind !== "ssh-sign" || mode !== "for" || heldDestination(ask.subject.destination))
    return refusal;
  const missing =
    ask.subject.destination === undefined ? "its destination is not known" : "the server's host key is not shown";
  return `this ssh-sign request takes --once only: ${missing}, so --for could not hold the key to one destination (it would sign for any server unasked)`;
}

/** Whether a signature's destination is shown in full, so that an approval `for` a while can be held to it. */
export function heldDestination(destination: SignDestination | undefined): destination is SignDestination {
  return destination !== undefined && (destination.kind === "sshsig" || destination.hostKey !== undefined);
}

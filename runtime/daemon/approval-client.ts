import type { Socket } from "node:net";
import type { ApprovalDecision, AskApproval } from "../gates/approvals/approval.js";
import { maxApprovalDeadlineMs } from "../gates/approvals/approval-queue.js";
import { isRootsSocket } from "../core/private-socket.js";
import { callDaemon } from "./client.js";
import { rootSocketPath } from "./protocol.js";

export interface AskThroughDaemonOptions {
  /** Where a denial for want of the daemon is explained (the asker's log). */
  log: (line: string) => void;
  /** The daemon's root socket (default: rootSocketPath(), FORAGE_RUN_DIR/daemon-root.sock). */
  socket?: string;
}

/** How long past a request's deadline an asker waits for the daemon's word before giving up. */
const graceMs = 5000;

/**
 * An AskApproval for a root process other than the daemon (the guard host, the push gate, the SSH
 * agent): each ask is a long-held `approvalAsk` call on the daemon's root socket, answered when the
 * human decides or the deadline passes. Whatever goes wrong (no daemon, a socket that is not
 * root's, a dropped connection, an answer that is not a decision) is `expired`, a denial, with the
 * reason logged: never an approval.
 *
 * @example
 * const ask = askThroughDaemon({ log });
 * const answer = await ask({ sandbox: "fix-42", kind: "host", subject: { name: "pypi.example" } });
 * if (isApproved(answer)) admit("pypi.example");
 */
export function askThroughDaemon(options: AskThroughDaemonOptions): AskApproval {
  return async (ask) => {
    const socket = options.socket ?? rootSocketPath();
    const what = `${ask.sandbox} ${ask.kind}`;
    // Only a socket in a directory only root writes, owned by root, is the daemon's: anyone else's could approve.
    if (!(await isRootsSocket(socket)))
      return expired(options, what, `${socket} is not the daemon's root socket (missing, or not root's)`);
    let open: Socket | undefined;
    const timer = setTimeout(() => open?.destroy(), (ask.deadlineMs ?? maxApprovalDeadlineMs) + graceMs);
    try {
      return await callDaemon("approvalAsk", ask, socket, { onOpen: (connection) => (open = connection) });
    } catch (error) {
      return expired(options, what, error instanceof Error ? error.message : String(error));
    } finally {
      clearTimeout(timer);
    }
  };
}

function expired(options: AskThroughDaemonOptions, what: string, reason: string): ApprovalDecision {
  options.log(`approval for ${what} denied without asking: ${reason}`);
  return { decision: "expired" };
}

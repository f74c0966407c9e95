import type { RequestMethods } from "../api/calls.js";
import { approvalNotifier } from "../gates/approvals/approval-notify.js";
import { ApprovalQueue } from "../gates/approvals/approval-queue.js";
import { gateAudit } from "../gates/shared/gate-audit.js";
import type { RuntimeContext } from "../core/context.js";
import type { HostUser } from "../core/host-user.js";
import type { HumanDecision } from "../gates/approvals/approval-view.js";
import { SandboxError } from "../core/errors.js";

type ApprovalCall = "approvals" | "approve" | "deny" | "approvalAsk";

/**
 * The approvals queue's calls. Root and the configured user list and answer (their sockets; the
 * gateway account's socket refuses these calls before they get here); only root's own socket
 * asks, since the askers are root's host processes and a request a client could queue would be a
 * way to pester the human or, answered by mistake, to approve what no gate held.
 */
export function approvalHandlers(
  queue: ApprovalQueue,
  caller: "user" | "gateway" | "root",
): RequestMethods<ApprovalCall> {
  const answerer = (): string => {
    if (caller === "gateway")
      throw new SandboxError("approvals are answered by root or the configured user, not the gateway account", "usage");
    return caller === "root" ? "root" : "the user's socket";
  };
  return {
    async approvals() {
      answerer();
      return queue.pending();
    },
    async approve(request) {
      const decision: HumanDecision =
        request.mode === "for"
          ? { decision: "for", untilMs: Date.now() + (request.forMs ?? 0) }
          : { decision: request.mode };
      return queue.answer(request.id, decision, answerer());
    },
    async deny(request) {
      return queue.answer(request.id, { decision: "deny" }, answerer());
    },
    async approvalAsk(request) {
      if (caller !== "root")
        throw new SandboxError(
          "approvalAsk is for root's own host processes (the network guard, the push gate, the SSH agent), on root's socket only",
          "usage",
        );
      return queue.ask(request);
    },
  };
}

/**
 * The daemon's queue: audit events in each sandbox's log, notifications to `user` (the
 * configured user) and the config's approvals.notify, approvals.deadline for asks naming none.
 */
export function daemonApprovalQueue(
  context: RuntimeContext,
  user: HostUser,
  log: (line: string) => void,
): ApprovalQueue {
  const { deadline, notify } = context.settings.host.approvals;
  return new ApprovalQueue({
    audit: (sandbox, event, detail) => gateAudit(context.paths, sandbox, event, log)(detail),
    onQueued: approvalNotifier({ user, hook: notify, log }),
    log,
    defaultDeadlineMs: deadline * 1000,
  });
}

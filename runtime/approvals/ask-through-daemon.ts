import { connect } from "node:net";
import { lineReader } from "../core/json-lines.js";
import { defaultApprovalDeadlineMs, type ApprovalDecision, type AskApproval } from "./approval.js";

/** Past the deadline the daemon answers `expired` itself; this covers a daemon that never answers. */
const answerGraceMs = 15_000;

/**
 * Asks through the daemon's queue from another of root's processes (the network guard host):
 * one `approvalAsk` call on root's own socket (`daemon-root.sock`, which only root can reach),
 * held open until the human answers or the deadline passes. Rejects when the daemon cannot be
 * reached or answers something else: the asker then refuses (never allows) and logs why.
 */
export function askThroughDaemon(rootSocket: string): AskApproval {
  return (ask) =>
    new Promise<ApprovalDecision>((resolve, reject) => {
      const socket = connect(rootSocket);
      const timer = setTimeout(() => fail(new Error("the daemon did not answer by the deadline")), (ask.deadlineMs ?? defaultApprovalDeadlineMs) + answerGraceMs);
      const fail = (error: Error): void => {
        clearTimeout(timer);
        socket.destroy();
        reject(error);
      };
      socket.on("error", (error) => fail(new Error(`the daemon's queue cannot be reached (${rootSocket}): ${error.message}`)));
      socket.on("close", () => fail(new Error("the daemon closed the question without an answer")));
      socket.on(
        "data",
        lineReader(
          (message) => {
            const answer = answerOf(message);
            if (answer === undefined) return; // progress and the like: not for us
            clearTimeout(timer);
            socket.removeAllListeners("close");
            socket.end();
            if (answer instanceof Error) reject(answer);
            else resolve(answer);
          },
          (error) => fail(error),
        ),
      );
      socket.write(`${JSON.stringify({ op: "approvalAsk", args: ask })}\n`);
    });
}

const decisions = new Set(["once", "always", "for", "deny", "expired"]);

/** The decision in a `result` line, an Error for an `error` line, undefined for any other line. */
function answerOf(message: unknown): ApprovalDecision | Error | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  if ("error" in message) {
    const error = message.error as { message?: unknown };
    return new Error(`the daemon refused the question: ${typeof error.message === "string" ? error.message : "no reason given"}`);
  }
  if (!("result" in message)) return undefined;
  const result = message.result as { decision?: unknown; untilMs?: unknown } | null;
  if (result === null || typeof result.decision !== "string" || !decisions.has(result.decision)) return new Error("the daemon's answer is not a decision");
  if (result.decision === "for") return typeof result.untilMs === "number" ? { decision: "for", untilMs: result.untilMs } : new Error("a `for` answer without its end");
  return { decision: result.decision as "once" | "always" | "deny" | "expired" };
}

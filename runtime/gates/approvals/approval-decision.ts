import type { ApprovalDecision } from "./approval.js";

/**
 * An answer as it came over a socket, checked field by field: anything but a well-formed decision
 * throws, so a garbled or mismatched answer can never read as an approval.
 *
 * @example decisionOf({ decision: "for", untilMs: 1790000000000 }) // → the same, typed
 */
export function decisionOf(answer: unknown): ApprovalDecision {
  if (typeof answer !== "object" || answer === null || Array.isArray(answer))
    throw new Error("expected a decision object");
  const { decision, untilMs } = answer as Record<string, unknown>;
  if (decision === "once" || decision === "always" || decision === "deny" || decision === "expired")
    return { decision };
  if (decision !== "for") throw new Error(`expected a decision, not ${JSON.stringify(decision)}`);
  if (typeof untilMs !== "number" || !Number.isFinite(untilMs)) throw new Error('expected untilMs with decision "for"');
  return { decision, untilMs };
}

import { isApproved, type AskApproval } from "../approvals/approval.js";
import { decisionText } from "../approvals/approval-view.js";
import { maxShownArgumentsBytes } from "../approvals/approval-schema.js";
import type { McpServerRoute } from "./mcp-route.js";
import { toolVerdict } from "./tool-policy.js";

/** Tools a human let through for a while (`--for`) or for good (`--always`), per server. */
export class StandingToolApprovals {
  private readonly until = new Map<string, number>();

  allows(server: string, tool: string, now: number): boolean {
    return (this.until.get(key(server, tool)) ?? 0) > now;
  }

  keep(server: string, tool: string, untilMs: number): void {
    this.until.set(key(server, tool), Math.max(untilMs, this.until.get(key(server, tool)) ?? 0));
  }
}

const key = (server: string, tool: string): string => `${server}\0${tool}`;

/** What the judge needs beyond the call: the human, and what their answers leave standing. */
export interface CallJudgeServices {
  ask: AskApproval;
  standing: StandingToolApprovals;
  /** How long a call waits for its answer (undefined: the queue's default). */
  deadlineMs?: number;
  /** Keeps an `--always` beyond this process (the sandbox's metadata); may fail, the call still goes. */
  keepAlways?: (server: string, tool: string) => Promise<void>;
}

/** The judgement of one tools/call: let through or not, and how it was decided (for the audit log and the agent). */
export interface CallJudgement {
  pass: boolean;
  how: string;
}

/**
 * Judges a call of `tool` with `args` (its arguments as the JSON text the gate will send): the
 * template's policy first (deny, allow), then what earlier answers left standing, then the human,
 * who is shown the arguments whole (ARCHITECTURE.md rule 18), so a call whose arguments are too long
 * to show is refused instead of asked about.
 */
export async function judgeCall(
  sandbox: string,
  server: McpServerRoute,
  tool: string,
  args: string,
  services: CallJudgeServices,
): Promise<CallJudgement> {
  const verdict = toolVerdict(server.policy, tool);
  if (verdict === "deny") return { pass: false, how: "refused: the template's policy denies it" };
  if (verdict === "allow") return { pass: true, how: "allowed by the template's policy" };
  if (services.standing.allows(server.name, tool, Date.now()))
    return { pass: true, how: "allowed: a human approved the tool (--for or --always)" };
  if (Buffer.byteLength(args) > maxShownArgumentsBytes)
    return {
      pass: false,
      how: `refused: its arguments are over ${maxShownArgumentsBytes / 1024} KiB, too long to show a human whole`,
    };
  const answer = await services.ask({
    sandbox,
    kind: "mcp-call",
    subject: { server: server.name, tool, arguments: args },
    ...(services.deadlineMs === undefined ? {} : { deadlineMs: services.deadlineMs }),
  });
  if (!isApproved(answer))
    return {
      pass: false,
      how: answer.decision === "expired" ? "refused: nobody answered in time" : "refused by a human",
    };
  if (answer.decision === "for") services.standing.keep(server.name, tool, answer.untilMs);
  if (answer.decision === "always") {
    services.standing.keep(server.name, tool, Number.POSITIVE_INFINITY);
    await services.keepAlways?.(server.name, tool).catch(() => undefined);
  }
  return { pass: true, how: `approved by a human (${decisionText(answer)})` };
}

import { recordEvent, type AuditEventKind } from "../../core/audit-log.js";
import type { RuntimePaths } from "../../core/paths.js";

/** What a gate writes a line of: its judgements, and the approvals queue's questions and answers. */
export type GateAuditKind = Extract<
  AuditEventKind,
  "push" | "ssh-sign" | "mcp-call" | "approval-asked" | "approval-answered"
>;

/**
 * A gate's line in the sandbox's audit log (`forage-ctl audit-log`). The one way every gate
 * records what it judged: the detail is stored as given, agent-supplied text included (JSON keeps
 * it whole; every surface that shows it escapes it, see agent-text.ts), and a failed write is
 * reported to `failed`, never thrown: a full disk loses the line, never the answer to a request.
 *
 * @example const record = gateAudit(paths, "fix-42", "push", log); record("refs/heads/main: refused (protected)");
 */
export function gateAudit(
  paths: RuntimePaths,
  sandbox: string,
  kind: GateAuditKind,
  failed: (line: string) => void = () => undefined,
): (detail: string) => Promise<void> {
  return (detail) =>
    recordEvent(paths, sandbox, kind, { detail }).catch((error: unknown) =>
      failed(
        `audit log of ${sandbox}: ${kind} not recorded: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
}

import type { ApprovalView } from "./approval-view.js";
import { escapeSandboxText } from "../shared/agent-text.js";

/**
 * A request as JSON shows it (`forage-ctl approvals --json`, `approvals show --json`, `approve
 * --json`, the approvals.notify hook's stdin): every string escaped as the terminal shows it
 * (agent-text.ts), so a script that prints a field as it is (`jq -r .subject.name`) prints no
 * invisible or direction-changing character. Escaping, not a mark beside raw text: a mark is
 * what a naive script would not read. The escapes are reversible (`\\` a backslash, `\xNN`,
 * `\uNNNN`, `\u{N}` a code point), so a script that needs the raw bytes can decode them; text of
 * plain visible characters is unchanged. `summary` is shown text already and is kept as it is; a
 * push's diffstat keeps its line breaks (each line escaped), as `approvals show` prints it.
 *
 * @example approvalJson(request).subject // → { name: "pay\\u200bpal.example" } for "pay\u200bpal.example"
 */
export function approvalJson(view: ApprovalView): ApprovalView {
  const escaped = { ...(escapedStrings(view) as ApprovalView), summary: view.summary };
  // A diffstat's lines are git's, one file each (git quotes a name with a newline): its own line breaks stay.
  if (view.kind === "push" && escaped.kind === "push")
    escaped.subject.diffstat = view.subject.diffstat.split("\n").map(escapeSandboxText).join("\n");
  return escaped;
}

/** `value` with each string in it escaped, at any depth (a field added later is escaped too). */
function escapedStrings(value: unknown): unknown {
  if (typeof value === "string") return escapeSandboxText(value);
  if (Array.isArray(value)) return value.map(escapedStrings);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, escapedStrings(field)]));
}

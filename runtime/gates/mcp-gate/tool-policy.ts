/**
 * Which tools of one MCP server an agent may call: each list holds tool names or patterns with `*`
 * (any run of characters, none included: `get_*` is `get_issue`, not `list_issues`).
 */
export interface ToolPolicy {
  allow: readonly string[];
  ask: readonly string[];
  deny: readonly string[];
}

/** What the gate does with a call: relay it, hold it for a human, or refuse it. */
export type ToolVerdict = "allow" | "ask" | "deny";

/**
 * The verdict for `tool`: deny wins over ask, ask over allow, and a tool no list names is asked
 * about. (The safer list wins, as in Claude Code's own permission rules: `allow: ["*"]` with
 * `deny: ["delete_*"]` refuses deletes, and `ask: ["*"]` with `allow: ["get_*"]` still asks.)
 *
 * @example toolVerdict({ allow: ["get_*"], ask: [], deny: ["get_secret"] }, "get_secret") // "deny"
 */
export function toolVerdict(policy: ToolPolicy, tool: string): ToolVerdict {
  if (policy.deny.some((pattern) => matches(pattern, tool))) return "deny";
  if (policy.ask.some((pattern) => matches(pattern, tool))) return "ask";
  if (policy.allow.some((pattern) => matches(pattern, tool))) return "allow";
  return "ask";
}

/** True when `pattern` (literal text and `*`) matches the whole of `name`. */
function matches(pattern: string, name: string): boolean {
  const parts = pattern.split("*");
  if (parts.length === 1) return pattern === name;
  const first = parts[0] ?? "";
  const last = parts.at(-1) ?? "";
  if (!name.startsWith(first) || name.length < first.length + last.length) return false;
  // Each middle part at its earliest place after the one before: greedy is enough for `*` alone.
  let at = first.length;
  for (const part of parts.slice(1, -1)) {
    const found = name.indexOf(part, at);
    if (found === -1) return false;
    at = found + part.length;
  }
  return name.length - last.length >= at && name.endsWith(last);
}

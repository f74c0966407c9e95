import type { KeyRedactor } from "../shared/key-redactor.js";
import { isRecord } from "./json-rpc.js";
import { toolVerdict, type ToolPolicy } from "./tool-policy.js";

/** One message from a server (a JSON answer, an event of a stream, a line of a stdio server's) is held whole to be read: this much at most. */
export const maxAnswerBytes = 4 * 1024 * 1024;

/** What the gate did to one message from the server on its way to the sandbox. */
export interface Passed {
  text: string;
  /** Tools taken out of a tools/list answer (the policy denies them). */
  hidden: number;
  /** Forms of the server's token taken out. */
  redacted: number;
}

/**
 * One JSON-RPC message from the server as the sandbox gets it: a tools/list answer without the
 * tools the policy denies (the agent is not shown what it may never call), and any form of the
 * token the gate sent taken out (a server that echoes its credential in an error must not hand it
 * over). Every answer carrying a `tools` list is filtered, whatever request it answers: a stream
 * resumed with Last-Event-ID replays answers the gate never saw asked for.
 */
export function passServerMessage(text: string, policy: ToolPolicy, redactor: KeyRedactor): Passed {
  let hidden = 0;
  let out = text;
  const message = parsed(text);
  if (isRecord(message) && isRecord(message.result) && Array.isArray(message.result.tools)) {
    const tools = message.result.tools.filter(
      (tool: unknown) => isRecord(tool) && typeof tool.name === "string" && toolVerdict(policy, tool.name) !== "deny",
    );
    hidden = message.result.tools.length - tools.length;
    if (hidden > 0) out = JSON.stringify({ ...message, result: { ...message.result, tools } });
  }
  const masked = maskText(out, redactor);
  return { text: masked.text, hidden, redacted: masked.count };
}

/**
 * Any text with every form of the server's secrets masked. The redactor reads a character per
 * byte (latin1): UTF-8 text would shift its spans (a "İ" lower-cases to two characters). Its
 * masks are ASCII over ASCII, so the bytes stay UTF-8.
 */
export function maskText(text: string, redactor: KeyRedactor): { text: string; count: number } {
  const { text: masked, count } = redactor.redact(Buffer.from(text, "utf8").toString("latin1"));
  return { text: count === 0 ? text : Buffer.from(masked, "latin1").toString("utf8"), count };
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

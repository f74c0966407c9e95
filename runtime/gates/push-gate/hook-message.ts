import { maxRefUpdates, parseRefUpdate, type RefUpdate } from "./ref-update.js";

/**
 * What one of the outbox's hooks (native/forage-git-relay.c) tells the gate, one message per hook
 * run: pre-receive reports every update of the push and its quarantine (checked, nothing asked);
 * update reports the one ref git is about to update (asked and pushed).
 */
export type HookMessage =
  { hook: "pre-receive"; quarantine: string; updates: RefUpdate[] } | { hook: "update"; update: RefUpdate };

/**
 * A hook's message, parsed strictly: anything but the exact shape throws (the gate then refuses).
 *
 * @example parseHookMessage("pre-receive\n/o/./objects/tmp_objdir-incoming-x\n<zeros> <id> refs/heads/a\n")
 * @example parseHookMessage("update\n<zeros> <id> refs/heads/a\n")
 */
export function parseHookMessage(text: string): HookMessage {
  const lines = text.split("\n");
  // Every line ends with a newline, so the last part is empty.
  if (lines.pop() !== "") throw new Error("a malformed message from the hook");
  const [hook, ...rest] = lines;
  if (hook === "update") {
    if (rest.length !== 1 || rest[0] === undefined) throw new Error("a malformed message from the update hook");
    return { hook, update: parseRefUpdate(rest[0]) };
  }
  if (hook !== "pre-receive") throw new Error("a message from an unknown hook");
  // The quarantine's line is empty when the push brought no new objects; an empty update line throws.
  const [quarantine, ...updates] = rest;
  if (quarantine === undefined || updates.length === 0) throw new Error("no ref updates");
  if (updates.length > maxRefUpdates)
    throw new Error(`more than ${maxRefUpdates} ref updates in one push: push fewer branches at once`);
  return { hook, quarantine, updates: updates.map(parseRefUpdate) };
}

/** One ref update of a push, as git-receive-pack hands it to the outbox's pre-receive hook. */
export interface RefUpdate {
  /** What the outbox had (not the upstream: the gate asks the upstream itself). */
  old: string;
  /** The commit to push, or null for a deletion. */
  new: string | null;
  ref: string;
}

/** More ref updates than this in one push are refused (a push is reviewed by a human). */
export const maxRefUpdates = 32;

const objectId = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const zeroId = /^0+$/;

/**
 * The hook's report, parsed: its quarantine directory (first line) and the ref updates. Anything
 * malformed throws: the report comes from git on the host, but its ids and names from the sandbox.
 *
 * @example parseHookReport("/o/objects/tmp_objdir-incoming-x\n<40 zeros> <id> refs/heads/a\n")
 */
export function parseHookReport(text: string): { quarantine: string; updates: RefUpdate[] } {
  const [quarantine = "", ...lines] = text.split("\n");
  const updates = lines.filter((line) => line !== "").map(parseLine);
  if (updates.length === 0) throw new Error("no ref updates");
  if (updates.length > maxRefUpdates) throw new Error(`more than ${maxRefUpdates} ref updates in one push: push fewer branches at once`);
  return { quarantine, updates };
}

function parseLine(line: string): RefUpdate {
  const [old, next, ref, ...rest] = line.split(" ");
  if (old === undefined || next === undefined || ref === undefined || rest.length > 0 || !objectId.test(old) || !objectId.test(next)) throw new Error("malformed ref update");
  return { old, new: zeroId.test(next) ? null : next, ref };
}

/** One ref update of a push, as git-receive-pack hands it to the outbox's hooks. */
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
 * One "OLD NEW REF" line, as git writes it to pre-receive (and the update hook's report, built from
 * its arguments, repeats). Anything malformed throws: the ids and names come from the sandbox.
 *
 * @example parseRefUpdate("<40 zeros> <id> refs/heads/a") // { old: "000…", new: "<id>", ref: "refs/heads/a" }
 */
export function parseRefUpdate(line: string): RefUpdate {
  const [old, next, ref, ...rest] = line.split(" ");
  if (
    old === undefined ||
    next === undefined ||
    ref === undefined ||
    ref === "" ||
    rest.length > 0 ||
    !objectId.test(old) ||
    !objectId.test(next)
  )
    throw new Error("malformed ref update");
  return { old, new: zeroId.test(next) ? null : next, ref };
}

/** The same update as one string (the gate remembers which updates pre-receive let through). */
export function refUpdateKey(update: RefUpdate): string {
  return `${update.old} ${update.new ?? "-"} ${update.ref}`;
}

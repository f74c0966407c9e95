import { runUserGit, type GateUser } from "./user-git.js";

/** Commit lines shown at most; more are counted. */
const maxCommitLines = 100;
/** Diffstat characters shown at most. */
const maxDiffstat = 8_000;

/** Where the pushed objects are: the outbox with the push's quarantine (git-receive-pack's). */
export interface PushObjects {
  gitDir: string;
  quarantine: string;
}

function gitEnv(objects: PushObjects): Record<string, string> {
  return { GIT_DIR: objects.gitDir, GIT_OBJECT_DIRECTORY: objects.quarantine, GIT_ALTERNATE_OBJECT_DIRECTORIES: `${objects.gitDir}/objects` };
}

/** Runs git as the user on the pushed objects, hooks and fsmonitor off (the outbox is input). */
function inspect(user: GateUser, objects: PushObjects, args: string[]): ReturnType<typeof runUserGit> {
  return runUserGit(user, ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", ...args], gitEnv(objects), 60_000);
}

/** Whether `id` names a commit the gate holds (the push's own objects or the repository's). */
export async function isCommit(user: GateUser, objects: PushObjects, id: string): Promise<boolean> {
  const result = await inspect(user, objects, ["cat-file", "-t", id]);
  return result.exitCode === 0 && result.stdout.trim() === "commit";
}

/** Whether `from` is an ancestor of `to` (false when `from` is not held here). */
export async function isAncestor(user: GateUser, objects: PushObjects, from: string, to: string): Promise<boolean> {
  return (await inspect(user, objects, ["merge-base", "--is-ancestor", from, to])).exitCode === 0;
}

/**
 * What the push carries, for the human: its commits oldest first ("<short> <subject>"), those of
 * `to` not in `from` (a new branch: not in any upstream branch held here), and the diffstat of
 * the range (a new branch: against the newest upstream branch it contains, or its root).
 */
export async function pushedCommits(user: GateUser, objects: PushObjects, from: string | null, to: string, upstreamHeads: readonly string[]): Promise<{ commits: string[]; diffstat: string }> {
  const held: string[] = [];
  for (const head of upstreamHeads) if (await isCommit(user, objects, head)) held.push(head);
  const exclude = from !== null ? [from] : held;
  const log = await inspect(user, objects, ["log", "--reverse", "--no-decorate", "--format=%h %s", to, "--not", ...exclude, "--"]);
  const lines = log.exitCode === 0 ? log.stdout.split("\n").filter((line) => line !== "") : [`(could not list the commits: ${log.stderr.trim()})`];
  const commits = lines.length > maxCommitLines ? [...lines.slice(0, maxCommitLines), `... and ${lines.length - maxCommitLines} more`] : lines;
  const base = from ?? (await mergeBase(user, objects, to, held));
  const stat = await inspect(user, objects, base === null ? ["show", "--stat", "--format=", to, "--"] : ["diff", "--stat", base, to, "--"]);
  const diffstat = stat.exitCode === 0 ? stat.stdout : `(no diffstat: ${stat.stderr.trim()})`;
  return { commits, diffstat: diffstat.length > maxDiffstat ? `${diffstat.slice(0, maxDiffstat)}\n...` : diffstat };
}

/** The newest commit `to` shares with the upstream's branches held here, or null. */
async function mergeBase(user: GateUser, objects: PushObjects, to: string, held: readonly string[]): Promise<string | null> {
  if (held.length === 0) return null;
  const result = await inspect(user, objects, ["merge-base", to, ...held]);
  return result.exitCode === 0 && result.stdout.trim() !== "" ? result.stdout.trim() : null;
}

/** Pushes exactly `to` to `ref` at `url` as the user, without force; the objects come from the push. */
export function pushUpstream(user: GateUser, objects: PushObjects, url: string, to: string, ref: string): ReturnType<typeof runUserGit> {
  return runUserGit(user, ["-c", "protocol.ext.allow=never", "-c", "protocol.fd.allow=never", "push", "--", url, `${to}:${ref}`], gitEnv(objects), 300_000);
}

import type { PushSubject } from "../approvals/approval.js";
import { lastWords, runUserGit, type GateUser } from "./user-git.js";

/** Commit lines listed from each end of a long push (its oldest, its newest); those between are counted. */
const commitsPerEnd = 50;
/** Files a diffstat lists at most; more are counted, and git's "N files changed" line is kept. */
const maxDiffstatFiles = 100;

/** Where the pushed objects are: the outbox with the push's quarantine (git-receive-pack's). */
export interface PushObjects {
  gitDir: string;
  quarantine: string;
}

function gitEnv(objects: PushObjects): Record<string, string> {
  return {
    GIT_DIR: objects.gitDir,
    GIT_OBJECT_DIRECTORY: objects.quarantine,
    GIT_ALTERNATE_OBJECT_DIRECTORIES: `${objects.gitDir}/objects`,
  };
}

/** Runs git as the user on the pushed objects, hooks and fsmonitor off (the outbox is input). */
function inspect(user: GateUser, objects: PushObjects, args: string[]): ReturnType<typeof runUserGit> {
  return runUserGit(
    user,
    ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", ...args],
    gitEnv(objects),
    60_000,
  );
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
 * What the push carries, for the human: its commits (those of `to` not in `from`; a new branch:
 * not in any upstream branch held here), counted exactly and listed oldest first ("<short>
 * <subject>"): all of them, or the oldest and the newest `commitsPerEnd` with the number left out
 * between (a bad commit hides best among the newest, a long list's end). Then the diffstat of the
 * range (a new branch: against the newest upstream branch it contains, or else the empty tree:
 * everything it brings). Throws when git cannot say: a push that cannot be shown is not asked about.
 */
export async function pushedCommits(
  user: GateUser,
  objects: PushObjects,
  from: string | null,
  to: string,
  upstreamHeads: readonly string[],
): Promise<Pick<PushSubject, "commitCount" | "commits" | "omitted" | "diffstat">> {
  const held: string[] = [];
  for (const head of upstreamHeads) if (await isCommit(user, objects, head)) held.push(head);
  const range = [to, "--not", ...(from !== null ? [from] : held), "--"];
  const commitCount = await countCommits(user, objects, range);
  const listed = commitCount <= 2 * commitsPerEnd ? await commitLines(user, objects, range, 0, commitCount) : undefined;
  const oldest = listed ?? (await commitLines(user, objects, range, commitCount - commitsPerEnd, commitsPerEnd));
  const newest = listed === undefined ? await commitLines(user, objects, range, 0, commitsPerEnd) : [];
  const omitted = commitCount - oldest.length - newest.length;
  const base = from ?? (await mergeBase(user, objects, to, held)) ?? (await emptyTree(user, objects));
  return {
    commitCount,
    commits: [...oldest, ...newest],
    ...(omitted > 0 ? { omitted: { after: oldest.length, count: omitted } } : {}),
    diffstat: await diffstat(user, objects, base, to),
  };
}

async function countCommits(user: GateUser, objects: PushObjects, range: readonly string[]): Promise<number> {
  const result = await inspect(user, objects, ["rev-list", "--count", ...range]);
  if (result.exitCode !== 0 || !/^\d+\n?$/.test(result.stdout))
    throw new Error(`could not count the commits: ${lastWords(result)}`);
  return Number(result.stdout.trim());
}

/**
 * `count` commit lines of the range, oldest first, after skipping its newest `skip`: git log's
 * own order (newest first, as rev-list counts) read in windows, then turned around.
 */
async function commitLines(
  user: GateUser,
  objects: PushObjects,
  range: readonly string[],
  skip: number,
  count: number,
): Promise<string[]> {
  if (count === 0) return [];
  const log = await inspect(user, objects, [
    "log",
    "--no-decorate",
    "--format=%h %s",
    `--skip=${skip}`,
    `--max-count=${count}`,
    ...range,
  ]);
  const lines = log.stdout.split("\n").filter((line) => line !== "");
  if (log.exitCode !== 0 || lines.length !== count) throw new Error(`could not list the commits: ${lastWords(log)}`);
  return lines.reverse();
}

/**
 * `git diff --stat` of base..to, at most `maxDiffstatFiles` files: git then writes " ..." where it
 * stops and still counts every file in its last line; that " ..." becomes how many it left out.
 */
async function diffstat(user: GateUser, objects: PushObjects, base: string, to: string): Promise<string> {
  const stat = await inspect(user, objects, ["diff", `--stat-count=${maxDiffstatFiles}`, base, to, "--"]);
  if (stat.exitCode !== 0) throw new Error(`could not make the diffstat: ${lastWords(stat)}`);
  const lines = stat.stdout.split("\n");
  const cut = lines.indexOf(" ...");
  const total = /^ (\d+) files? changed/.exec(lines.filter((line) => line !== "").at(-1) ?? "")?.[1];
  if (cut < 0) return stat.stdout;
  const hidden =
    total === undefined ? "more files" : `${Number(total) - cut} more file${Number(total) - cut === 1 ? "" : "s"}`;
  lines[cut] = ` ... ${hidden} not shown (counted in the last line)`;
  return lines.join("\n");
}

/** The empty tree's id in this repository's hash (nothing written): a new branch's diff base with no upstream branch in it. */
async function emptyTree(user: GateUser, objects: PushObjects): Promise<string> {
  const result = await inspect(user, objects, ["hash-object", "-t", "tree", "/dev/null"]);
  const id = result.stdout.trim();
  if (result.exitCode !== 0 || !/^[0-9a-f]{40,64}$/.test(id))
    throw new Error(`could not name the empty tree: ${lastWords(result)}`);
  return id;
}

/** The newest commit `to` shares with the upstream's branches held here, or null. */
async function mergeBase(
  user: GateUser,
  objects: PushObjects,
  to: string,
  held: readonly string[],
): Promise<string | null> {
  if (held.length === 0) return null;
  const result = await inspect(user, objects, ["merge-base", to, ...held]);
  return result.exitCode === 0 && result.stdout.trim() !== "" ? result.stdout.trim() : null;
}

/** Pushes exactly `to` to `ref` at `url` as the user, without force; the objects come from the push. */
export function pushUpstream(
  user: GateUser,
  objects: PushObjects,
  url: string,
  to: string,
  ref: string,
): ReturnType<typeof runUserGit> {
  return runUserGit(
    user,
    ["-c", "protocol.ext.allow=never", "-c", "protocol.fd.allow=never", "push", "--", url, `${to}:${ref}`],
    gitEnv(objects),
    300_000,
  );
}

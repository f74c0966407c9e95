import { lastWords, runUserGit, type GateUser } from "./user-git.js";

/** What the upstream has now, asked of it as the user: its branches' commits and its default branch. */
export interface UpstreamState {
  heads: Map<string, string>;
  /** The branch its HEAD points at (refs/heads/…), or null when it does not say. */
  defaultBranch: string | null;
}

/** `git ls-remote --symref URL` as the user; throws with git's words when the upstream cannot be read. */
export async function upstreamState(user: GateUser, url: string): Promise<UpstreamState> {
  const result = await runUserGit(
    user,
    ["-c", "protocol.ext.allow=never", "ls-remote", "--symref", "--", url],
    {},
    60_000,
  );
  if (result.exitCode !== 0) throw new Error(`could not read the upstream: ${lastWords(result)}`);
  const heads = new Map<string, string>();
  let defaultBranch: string | null = null;
  for (const line of result.stdout.split("\n")) {
    const symref = /^ref: (refs\/heads\/\S+)\tHEAD$/.exec(line);
    if (symref?.[1] !== undefined) defaultBranch = symref[1];
    const head = /^([0-9a-f]{40,64})\t(refs\/heads\/\S+)$/.exec(line);
    if (head?.[1] !== undefined && head[2] !== undefined) heads.set(head[2], head[1]);
  }
  return { heads, defaultBranch };
}

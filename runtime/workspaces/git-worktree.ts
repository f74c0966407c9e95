import { runVcs, type RepoOwner } from "./vcs-command.js";

/**
 * Adds a git worktree of `repo` at `path`: on a new branch `branch` from `startPoint` (HEAD by
 * default), or with an existing branch checked out when `checkout` is true. git refuses an
 * existing branch name, or a branch checked out elsewhere, with its own message.
 */
export async function addGitWorktree(
  owner: RepoOwner,
  repo: string,
  path: string,
  branch: string,
  options: { checkout: boolean; startPoint?: string },
): Promise<void> {
  const args = options.checkout
    ? ["-C", repo, "worktree", "add", "--", path, branch]
    : ["-C", repo, "worktree", "add", "-b", branch, "--", path, options.startPoint ?? "HEAD"];
  await runVcs(owner, "git", args, `add a git worktree of ${repo} on branch ${branch}`);
}

/**
 * A new worktree's git directories, asked of git right after it made them (before any sandbox
 * could touch the worktree): the shared one (objects, refs, hooks, config) and the worktree's own.
 */
export async function worktreeGitDirs(owner: RepoOwner, worktree: string): Promise<{ common: string; own: string }> {
  const said = await runVcs(
    owner,
    "git",
    ["-C", worktree, "rev-parse", "--path-format=absolute", "--git-common-dir", "--absolute-git-dir"],
    `find the git directories of ${worktree}`,
  );
  const [common = "", own = ""] = said.trim().split("\n");
  return { common, own };
}

/**
 * Forgets a removed worktree (its directory is already gone), then deletes its branch unless the
 * branch has commits that no other branch, tag or remote-tracking ref contains: those are kept,
 * and the returned message says so. git works on the recorded store (GIT_DIR), never through the
 * worktree's files, which the sandbox could have rewritten.
 */
export async function forgetGitWorktree(
  owner: RepoOwner,
  store: string,
  branch: string | null,
): Promise<string | undefined> {
  const gitDir = { GIT_DIR: store };
  await runVcs(owner, "git", ["worktree", "prune"], "forget the removed worktree", gitDir);
  if (branch === null) return undefined;
  const unmerged = await runVcs(
    owner,
    "git",
    [
      "rev-list",
      "--count",
      `refs/heads/${branch}`,
      "--not",
      `--exclude=${branch}`,
      "--branches",
      "--tags",
      "--remotes",
    ],
    `check branch ${branch} for unmerged commits`,
    gitDir,
  );
  const count = Number(unmerged.trim());
  if (count > 0)
    return `branch ${branch} in ${store} has ${count} commit(s) not merged anywhere: kept (git branch -D ${branch} deletes it)`;
  await runVcs(owner, "git", ["branch", "-D", "--", branch], `delete branch ${branch}`, gitDir);
  return undefined;
}

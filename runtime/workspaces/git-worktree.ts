import { runVcs, type RepoOwner } from "./vcs-command.js";

/**
 * Adds a git worktree of `repo` at `path`: on a new branch `branch` from `startPoint` (HEAD by
 * default), or with an existing branch checked out when `checkout` is true. git refuses an
 * existing branch name, or a branch checked out elsewhere, with its own message.
 */
export async function addGitWorktree(owner: RepoOwner, repo: string, path: string, branch: string, options: { checkout: boolean; startPoint?: string }): Promise<void> {
  const args = options.checkout ? ["-C", repo, "worktree", "add", path, branch] : ["-C", repo, "worktree", "add", "-b", branch, path, options.startPoint ?? "HEAD"];
  await runVcs(owner, "git", args, `add a git worktree of ${repo} on branch ${branch}`);
}

/** The repository's shared git directory (objects, refs, hooks, config), as an absolute path. */
export async function gitCommonDir(owner: RepoOwner, worktree: string): Promise<string> {
  return (await runVcs(owner, "git", ["-C", worktree, "rev-parse", "--path-format=absolute", "--git-common-dir"], `find the git directory of ${worktree}`)).trim();
}

/**
 * Removes the worktree, then its branch unless the branch has commits that no other branch, tag
 * or remote-tracking ref contains: those are kept, and the returned message says so.
 */
export async function removeGitWorktree(owner: RepoOwner, repo: string, path: string, branch: string | null): Promise<string | undefined> {
  await runVcs(owner, "git", ["-C", repo, "worktree", "remove", "--force", path], `remove the worktree ${path}`);
  if (branch === null) return undefined;
  const unmerged = await runVcs(owner, "git", ["-C", repo, "rev-list", "--count", `refs/heads/${branch}`, "--not", `--exclude=${branch}`, "--branches", "--tags", "--remotes"], `check branch ${branch} for unmerged commits`);
  const count = Number(unmerged.trim());
  if (count > 0) return `branch ${branch} in ${repo} has ${count} commit(s) not merged anywhere: kept (git branch -D ${branch} deletes it)`;
  await runVcs(owner, "git", ["-C", repo, "branch", "-D", branch], `delete branch ${branch}`);
  return undefined;
}

import { realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runVcs, type RepoOwner } from "./vcs-command.js";

/**
 * Adds a jj workspace of `repo` at `path` (an empty directory) named `name`, its working-copy
 * commit on top of `revision` (default: the repository's @-parent, as jj does). jj records the
 * repository relative to the workspace; the sandbox sees the workspace at another path, so the
 * record is rewritten to the repository's absolute path, which the sandbox binds at that same path.
 */
export async function addJjWorkspace(owner: RepoOwner, repo: string, name: string, path: string, revision: string | null): Promise<void> {
  const args = ["-R", repo, "workspace", "add", "--name", name, ...(revision === null ? [] : ["--revision", revision]), path];
  await runVcs(owner, "jj", args, `add jj workspace "${name}" to ${repo}`);
  await writeFile(join(path, ".jj/repo"), await jjRepoStore(repo));
}

/** The repository's shared store (`<repo>/.jj/repo`), resolved: what every workspace points at. */
export async function jjRepoStore(repo: string): Promise<string> {
  return realpath(join(repo, ".jj/repo"));
}

/** Makes the repository forget the workspace (its commits stay in the history). */
export async function forgetJjWorkspace(owner: RepoOwner, repo: string, name: string): Promise<void> {
  await runVcs(owner, "jj", ["-R", repo, "workspace", "forget", name], `forget jj workspace "${name}" in ${repo}`);
}

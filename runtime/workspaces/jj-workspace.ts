import { join } from "node:path";
import { runCommand } from "../core/run-command.js";
import { SandboxError } from "../core/errors.js";
import { runVcs, type RepoOwner } from "./vcs-command.js";

/**
 * Adds a jj workspace of `repo` at `path` (an empty directory) named `name`, its working-copy
 * commit on top of `revision` (default: as jj does). jj records the repository relative to the
 * workspace; the sandbox sees the workspace at another path, so the record is rewritten — as the
 * owner, in the owner's directory — to `store`, the checked absolute path of `.jj/repo`, which
 * the sandbox binds at that same path.
 */
export async function addJjWorkspace(owner: RepoOwner, repo: string, name: string, path: string, revision: string | null, store: string): Promise<void> {
  const args = ["-R", repo, "workspace", "add", "--name", name, ...(revision === null ? [] : ["--revision", revision]), path];
  await runVcs(owner, "jj", args, `add jj workspace "${name}" to ${repo}`);
  const pointer = join(path, ".jj/repo");
  const written = await runCommand("tee", ["--", pointer], { input: store, stdout: "ignore", uid: owner.uid, gid: owner.gid, reject: false });
  if (written.exitCode !== 0) throw new SandboxError(`could not point jj workspace "${name}" at ${store}: ${written.stderr}`, "vcs");
}

/** Makes the repository forget the workspace (its commits stay in the history). */
export async function forgetJjWorkspace(owner: RepoOwner, repo: string, name: string): Promise<void> {
  await runVcs(owner, "jj", ["-R", repo, "--ignore-working-copy", "workspace", "forget", name], `forget jj workspace "${name}" in ${repo}`);
}

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
export async function addJjWorkspace(
  owner: RepoOwner,
  repo: string,
  name: string,
  path: string,
  revision: string | null,
  store: string,
): Promise<void> {
  const colocation = (await jjColocatesWorkspaces()) ? ["--no-colocate"] : [];
  const args = [
    "-R",
    repo,
    "workspace",
    "add",
    "--name",
    name,
    ...colocation,
    ...(revision === null ? [] : ["--revision", revision]),
    path,
  ];
  await runVcs(owner, "jj", args, `add jj workspace "${name}" to ${repo}`);
  const pointer = join(path, ".jj/repo");
  const written = await runCommand("tee", ["--", pointer], {
    input: store,
    stdout: "ignore",
    uid: owner.uid,
    gid: owner.gid,
    reject: false,
  });
  if (written.exitCode !== 0)
    throw new SandboxError(`could not point jj workspace "${name}" at ${store}: ${written.stderr}`, "vcs");
}

/** Makes the repository forget the workspace (its commits stay in the history). */
export async function forgetJjWorkspace(owner: RepoOwner, repo: string, name: string): Promise<void> {
  await runVcs(
    owner,
    "jj",
    ["-R", repo, "--ignore-working-copy", "workspace", "forget", name],
    `forget jj workspace "${name}" in ${repo}`,
  );
}

let colocates: Promise<boolean> | undefined;

/**
 * Whether this jj makes a Git worktree for a new workspace of a colocated repository (jj 0.46 on,
 * the default for `jj git init`): then the sandbox's workspace is added with --no-colocate, which
 * older jj does not know. Two reasons: jj does it with `git worktree add --orphan`, which git
 * before 2.42 refuses (Debian 12 has 2.39), and a worktree would give the sandbox a `.git` that
 * leads into the host repository's git directory, which a jj workspace's guards do not cover.
 */
function jjColocatesWorkspaces(): Promise<boolean> {
  colocates ??= runCommand("jj", ["--version"], { reject: false }).then((result) => {
    const [, major = "0", minor = "0"] = /jj (\d+)\.(\d+)/.exec(result.stdout) ?? [];
    return Number(major) > 0 || Number(minor) >= 46;
  });
  return colocates;
}

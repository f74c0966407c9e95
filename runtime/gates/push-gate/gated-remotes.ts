import { lstat } from "node:fs/promises";
import { join } from "node:path";
import type { WorkspaceMount } from "../../state/metadata.js";
import { gatedRemoteName, type GatedRemote } from "./sandbox-git-config.js";
import { runUserGit, type GateUser } from "./user-git.js";

/**
 * The git directory whose remotes a workspace pushes to, from what `up` recorded (never from a
 * path the sandbox names): a worktree's common `.git`, a jj repository's colocated `.git` or its
 * backing `.jj/repo/store/git`, a direct workspace's own `.git`.
 */
export async function repositoryGitDir(workspace: WorkspaceMount): Promise<string | null> {
  const git = workspace.stores?.find((store) => store.kind === "git");
  if (git !== undefined) return git.path;
  const jj = workspace.stores?.find((store) => store.kind === "jj");
  const candidate = jj !== undefined ? join(jj.path, "store/git") : join(workspace.hostPath, ".git");
  return (await lstat(candidate).catch(() => undefined))?.isDirectory() === true ? candidate : null;
}

/**
 * The remotes of the user's repository, read as the user: each with its push URL (pushurl, else
 * url). A remote whose name the relay cannot carry, or whose URL runs a command (git's
 * "<transport>::" forms such as ext::) or looks like an option, is left out: it is not gated.
 */
export async function gatedRemotes(user: GateUser, gitDir: string): Promise<GatedRemote[]> {
  const said = await runUserGit(
    user,
    ["-c", "core.hooksPath=/dev/null", "config", "-z", "--get-regexp", "^remote\\..*\\.(url|pushurl)$"],
    { GIT_DIR: gitDir },
  );
  const urls = new Map<string, { url?: string; pushurl?: string }>();
  for (const entry of said.exitCode === 0 ? said.stdout.split("\0") : []) {
    const match = /^remote\.(.+)\.(url|pushurl)\n([^]*)$/.exec(entry);
    if (match?.[1] === undefined || match[2] === undefined || match[3] === undefined) continue;
    urls.set(match[1], { ...urls.get(match[1]), [match[2]]: match[3] });
  }
  const remotes: GatedRemote[] = [];
  for (const [name, { url, pushurl }] of urls) {
    const push = pushurl ?? url;
    if (push !== undefined && gatedRemoteName(name) && acceptedUrl(push))
      remotes.push({ name, url: push, fromPushUrl: pushurl !== undefined });
  }
  return remotes.sort((a, b) => (a.name < b.name ? -1 : 1));
}

function acceptedUrl(url: string): boolean {
  return url !== "" && !url.startsWith("-") && !/^[A-Za-z][A-Za-z0-9+.-]*::/.test(url) && !/[\n\r\0]/.test(url);
}

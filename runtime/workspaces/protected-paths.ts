import { lstat, readFile, realpath } from "node:fs/promises";
import { join, relative } from "node:path";

export { protectedPaths, type ProtectedPath } from "../../generator/config/schema/protected-paths.js";

/** The files by which a git worktree and a jj workspace find their store (plain files there). */
export const vcsPointerFiles = [".git", ".jj/repo"];

/**
 * Which of `names` exist under `root` as real files or directories, reached without any symbolic
 * link on the way (a link planted in the workspace must not make forage-ctl bind what it points at).
 */
export async function existingUnder(root: string, names: readonly string[]): Promise<string[]> {
  const realRoot = await realpath(root).catch(() => undefined);
  if (realRoot === undefined) return [];
  const found: string[] = [];
  for (const name of names) {
    const path = join(realRoot, name);
    const info = await lstat(path).catch(() => undefined);
    if (info === undefined || info.isSymbolicLink() || !(info.isFile() || info.isDirectory())) continue;
    const real = await realpath(path).catch(() => undefined);
    if (real === path && !relative(realRoot, real).startsWith("..")) found.push(name);
  }
  return found;
}

/** A relative path inside a workspace: plain segments, no "..", no leading "/". */
const relativePath = /^(?!.*(^|\/)\.\.?(\/|$))[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/**
 * More paths a repository protects in its own workspace: `.forage/protected`, one relative path
 * per line (# comments). It can only add to what the template protects, never lift protection,
 * and `.forage` itself is protected, so the agent cannot edit the list.
 */
export async function repoProtectedPaths(workspace: string): Promise<string[]> {
  if ((await existingUnder(workspace, [".forage/protected"])).length === 0) return [];
  const text = (await readFile(join(workspace, ".forage/protected"), "utf8").catch(() => "")).slice(0, 16_384);
  return text
    .split("\n")
    .map((line) => line.replace(/#.*/, "").trim().replace(/\/+$/, ""))
    .filter((line) => relativePath.test(line))
    .slice(0, 64);
}

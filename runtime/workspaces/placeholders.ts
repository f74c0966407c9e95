import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Placeholder } from "../core/bind.js";
import { SandboxError } from "../core/errors.js";
import { runCommand } from "../core/run-command.js";
import { systemProgramDirs } from "../core/user-command-path.js";
import { makePointsAs } from "../mounts/host-mounts.js";

/** A stand-in's mount point that `up` made in a workspace (a path relative to it). */
export interface StandIn {
  path: string;
  placeholder: Placeholder;
}

/**
 * The trade-off of a stand-in: a bind needs a mount point, and a mount point in a workspace is an
 * entry of the user's directory on the host too (empty directories `.envrc/`, `.vscode/`, a
 * `.git/commondir` holding "."), visible while the sandbox runs. They are made as the user (never
 * as root in a directory the user controls), hold what the stand-in holds (so the host's git reads
 * the same "nothing" as the sandbox's), and are recorded as made, so the last sandbox using the
 * folder removes exactly those (see folder-users.ts). Returns what was made, and what the user may
 * not create (`denied`: the agent, with the user's uid and gid and no other groups, cannot either,
 * so it needs no stand-in); anything else that fails stops the start.
 */
export async function makeMountPoints(
  root: string,
  points: ReadonlyMap<string, Placeholder>,
  owner: { uid: number; gid: number },
): Promise<{ made: StandIn[]; denied: string[] }> {
  if (points.size === 0) return { made: [], denied: [] };
  const asked = [...points].map(([path, placeholder]) => ({ path, placeholder }));
  // One static helper as the user for all of them, in order (a shell ran a mkdir each: ~4 ms apiece, ~12 per up).
  const results = await makePointsAs(
    owner,
    asked.map(({ path, placeholder }) =>
      placeholder.kind === "directory"
        ? { kind: "d", path: join(root, path), text: "" }
        : { kind: "f", path: join(root, path), text: placeholder.text },
    ),
  );
  const made: StandIn[] = [];
  const denied: string[] = [];
  for (const [i, point] of asked.entries()) {
    const result = results[i] ?? "failed (no answer)";
    if (result === "made") made.push(point);
    else if (result === "denied") denied.push(point.path);
    else if (result !== "exists")
      throw new SandboxError(
        `could not make the mount point of the stand-in for ${join(root, point.path)}: ${result.replace(/^failed /, "")}`,
        "container",
      );
  }
  return { made, denied };
}

/**
 * Removes, as the user, the stand-ins' mount points `up` made in `root`, each only while it still
 * is exactly a stand-in (the user may have put something of their own there since): files whose
 * text is still the stand-in's, then directories deepest first, which rmdir removes only while
 * empty. One rm and one rmdir for all of them (one each was ~4 ms apiece, 8 in a bare workspace).
 */
export async function removeStandIns(
  root: string,
  standIns: readonly StandIn[],
  owner: { uid: number; gid: number },
): Promise<void> {
  const info = await lstat(root).catch(() => undefined);
  if (info?.isDirectory() !== true || info.uid !== owner.uid) return;
  const files: string[] = [];
  const directories: string[] = [];
  for (const { path, placeholder } of [...standIns].sort((a, b) => b.path.length - a.path.length)) {
    const full = join(root, path);
    if (placeholder.kind === "file") {
      if (await isFileStandIn(full, placeholder.text)) files.push(full);
    } else if ((await lstat(full).catch(() => undefined))?.isDirectory() === true) directories.push(full);
  }
  // rm and rmdir from the system's directories (on NixOS its profile: /usr/bin and /bin hold neither).
  const run = {
    uid: owner.uid,
    gid: owner.gid,
    reject: false,
    cwd: "/",
    env: { PATH: systemProgramDirs.join(":") },
  } as const;
  if (files.length > 0) await runCommand("rm", ["--", ...files], run);
  // A directory that is not empty (the user's files in it) fails alone; rmdir goes on with the rest.
  if (directories.length > 0) await runCommand("rmdir", ["--", ...directories], run);
}

/** A file stand-in still holding exactly its text. */
async function isFileStandIn(path: string, text: string): Promise<boolean> {
  const info = await lstat(path).catch(() => undefined);
  return (
    info?.isFile() === true &&
    info.size === text.length &&
    (await readFile(path, "utf8").catch(() => undefined)) === text
  );
}

import { lstat, readdir, readFile } from "node:fs/promises";
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
 * Removes, as the user, the stand-ins' mount points `up` made in `root`, deepest first, each only
 * while it still is exactly a stand-in (the user may have put something of their own there since).
 */
export async function removeStandIns(
  root: string,
  standIns: readonly StandIn[],
  owner: { uid: number; gid: number },
): Promise<void> {
  const info = await lstat(root).catch(() => undefined);
  if (info?.isDirectory() !== true || info.uid !== owner.uid) return;
  for (const { path, placeholder } of [...standIns].sort((a, b) => b.path.length - a.path.length)) {
    if (!(await isStandIn(join(root, path), placeholder))) continue;
    // rm and rmdir from the system's directories (on NixOS its profile: /usr/bin and /bin hold neither).
    const run = {
      uid: owner.uid,
      gid: owner.gid,
      reject: false,
      cwd: "/",
      env: { PATH: systemProgramDirs.join(":") },
    } as const;
    await runCommand(placeholder.kind === "file" ? "rm" : "rmdir", ["--", join(root, path)], run);
  }
}

async function isStandIn(path: string, placeholder: Placeholder): Promise<boolean> {
  const info = await lstat(path).catch(() => undefined);
  if (placeholder.kind === "directory")
    return info?.isDirectory() === true && (await readdir(path).catch(() => ["?"])).length === 0;
  return (
    info?.isFile() === true &&
    info.size === placeholder.text.length &&
    (await readFile(path, "utf8").catch(() => undefined)) === placeholder.text
  );
}

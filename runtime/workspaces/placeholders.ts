import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { runCommand } from "../core/run-command.js";
import { systemProgramDirs } from "../core/user-command-path.js";
import { makePointsAs } from "../nspawn/host-mounts.js";
import type { SandboxMetadata } from "../state/metadata.js";
import { guardState, workspaceGuards, type Guard, type Placeholder } from "./guarded-paths.js";

/**
 * The trade-off of a stand-in: a bind needs a mount point, and a mount point in a workspace is an
 * entry of the user's directory on the host too (empty directories `.envrc/`, `.vscode/`, a
 * `.git/commondir` holding "."), visible while the sandbox runs. They are made as the user (never as root in a
 * directory the user controls), hold what the stand-in holds (so the host's git reads the same
 * "nothing" as the sandbox's), and are removed again when the sandbox stops, if they still are
 * exactly a stand-in. Where the user cannot write, systemd-nspawn makes the mount point itself.
 */
export async function makeMountPoints(root: string, points: ReadonlyMap<string, Placeholder>, owner: { uid: number; gid: number }): Promise<void> {
  if (points.size === 0) return;
  // One static helper as the user for all of them, in order (a shell ran a mkdir each: ~4 ms apiece, ~12 per up).
  await makePointsAs(
    owner,
    [...points].map(([path, placeholder]) => (placeholder.kind === "directory" ? { kind: "d", path: join(root, path), text: "" } : { kind: "f", path: join(root, path), text: placeholder.text })),
  );
}

/** Removes, as the user, the stand-ins' mount points a stopped sandbox left in its workspaces. */
export async function removePlaceholders(metadata: SandboxMetadata): Promise<void> {
  for (const mount of [metadata.workspace, ...metadata.mounts]) {
    if ("readOnly" in mount && mount.readOnly) continue;
    const info = await lstat(mount.hostPath).catch(() => undefined);
    if (info?.isDirectory() !== true || info.uid !== metadata.uid) continue;
    // `unprotected` is not known here: every listed path is looked at, only stand-ins go.
    for (const guard of await workspaceGuards(mount.hostPath, [])) await removeStandIn(mount.hostPath, guard, metadata);
  }
}

async function removeStandIn(root: string, guard: Guard, owner: { uid: number; gid: number }): Promise<void> {
  if (guard.placeholder === null) return;
  const parts = guard.path.split("/");
  for (const [i] of parts.entries()) {
    const rel = parts.slice(0, i + 1).join("/");
    const last = i === parts.length - 1;
    if (await isStandIn(join(root, rel), last ? guard.placeholder : { kind: "directory" })) {
      // rm and rmdir from the system's directories (on NixOS its profile: /usr/bin and /bin hold neither).
      const run = { uid: owner.uid, gid: owner.gid, reject: false, cwd: "/", env: { PATH: systemProgramDirs.join(":") } } as const;
      await runCommand(last && guard.placeholder.kind === "file" ? "rm" : "rmdir", ["--", join(root, rel)], run);
      return;
    }
    if ((await guardState(root, { path: rel, placeholder: null })).state !== "present") return;
  }
}

async function isStandIn(path: string, placeholder: Placeholder): Promise<boolean> {
  const info = await lstat(path).catch(() => undefined);
  if (placeholder.kind === "directory") return info?.isDirectory() === true && (await readdir(path).catch(() => ["?"])).length === 0;
  return info?.isFile() === true && info.size === placeholder.text.length && (await readFile(path, "utf8").catch(() => undefined)) === placeholder.text;
}

import { spawn } from "node:child_process";
import { join } from "node:path";
import { packageRoot } from "../core/package-root.js";
import { runCommand } from "../core/run-command.js";

/**
 * The host-side mounts of a sandbox's start, each batch in one process of the static helper
 * `forage-mounts` (native/forage-mounts.c) instead of a mount(8) or umount(8) process per mount
 * (~5-10 ms apiece).
 */
export function mountsHelperPath(): string {
  return join(packageRoot(), "dist/native/forage-mounts");
}

/**
 * Binds each descriptor's own file onto its point, private, all or nothing: the helper gets the
 * descriptors as its fds 3, 4, … in order and binds /proc/self/fd/N, which the kernel follows to
 * the open file (no path is resolved again). Resolves with the helper's complaint on failure
 * (nothing of this batch stays mounted then, unless the helper itself was killed midway).
 */
export async function bindDescriptors(
  toMount: readonly { fd: number; point: string }[],
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const child = spawn(mountsHelperPath(), ["bind", ...toMount.map((m) => m.point)], {
    stdio: ["ignore", "ignore", "pipe", ...toMount.map((m) => m.fd)],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  });
  return code === 0
    ? { ok: true }
    : { ok: false, reason: stderr.trim() || `forage-mounts exited (${code ?? "signal"})` };
}

/** Detaches every point with what lies below it, carrying on past one that fails (those stay: their directories then cannot be removed). */
export async function unmountPoints(points: readonly string[]): Promise<void> {
  if (points.length > 0) await runCommand(mountsHelperPath(), ["unmount", ...points], { reject: false });
}

/** Sets the size of the tmpfs at `path` in process `pid`'s mount namespace and root, its mount flags kept. */
export async function resizeTmpfs(pid: number, path: string, bytes: number): Promise<void> {
  await runCommand(mountsHelperPath(), ["resize-tmpfs", String(pid), path, String(bytes)]);
}

/**
 * Makes mount points as `owner` (never as root in a directory the user controls): `d` a
 * directory, `f` a file holding `text`, never over anything that exists. Resolves with one answer
 * a point, in order: "made", "exists", "denied" (the user may not create it there) or
 * "failed REASON".
 */
export async function makePointsAs(
  owner: { uid: number; gid: number },
  points: readonly { kind: "d" | "f"; path: string; text: string }[],
): Promise<string[]> {
  const args = points.flatMap((p) => [p.kind, p.path, p.text]);
  const result = await runCommand(mountsHelperPath(), ["make-points", String(owner.uid), String(owner.gid), ...args]);
  return result.stdout.split("\n").filter((line) => line !== "");
}

/**
 * Assembles a staged workspace's tree (native/pin-tree.c): each pin done in order inside `root`,
 * resolved beneath it without following links; a stand-in's root-owned source is given with it.
 * Resolves with the helper's complaint on failure (the caller detaches the whole tree then).
 */
export async function pinInside(
  root: string,
  pins: readonly { kind: "ro" | "rw" | "link" | "from"; path: string; source: string }[],
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const result = await runCommand(
    mountsHelperPath(),
    ["pin", root, ...pins.flatMap((pin) => [pin.kind, pin.path, pin.source])],
    { reject: false },
  );
  return result.exitCode === 0
    ? { ok: true }
    : { ok: false, reason: result.stderr.trim() || `forage-mounts exited (${result.exitCode ?? "signal"})` };
}

/**
 * Gives a running container (a warm pool's member) its hostname and binds, as process `pid` (its
 * init) sees its files (native/adopt-binds.c): each source cloned on the host, read-only where
 * asked, and moved onto its target inside; missing targets are made. Sources are root's (staged
 * mount points or root's own files), or with `sourceInside` the container's own (cloned inside).
 * Rejects with the helper's complaint.
 */
export async function adoptBinds(
  pid: number,
  hostname: string,
  binds: readonly { source: string; target: string; readOnly: boolean; sourceInside?: boolean }[],
): Promise<void> {
  const args = binds.flatMap((bind) => [
    `${bind.readOnly ? "ro" : "rw"}${bind.sourceInside === true ? "-inside" : ""}`,
    bind.source,
    bind.target,
  ]);
  const result = await runCommand(mountsHelperPath(), ["adopt", String(pid), hostname, ...args], { reject: false });
  if (result.exitCode !== 0)
    throw new Error(result.stderr.trim() || `forage-mounts adopt exited (${result.exitCode ?? "signal"})`);
}

import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rmdir, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCommand } from "../core/run-command.js";
import { openPinned, type PinnedPath } from "../core/pinned-path.js";
import { SandboxError } from "../core/errors.js";
import type { Bind } from "../core/bind.js";

/** Binds ready for systemd-nspawn, and how to take the staging mounts down again. */
export interface StagedBinds {
  binds: Bind[];
  /** Unmounts the staging mounts (the container keeps its own copies) and removes their directory. */
  release(): Promise<void>;
}

/**
 * Makes every user-controlled bind source (a Bind with `owners`) safe to hand to systemd-nspawn,
 * which resolves a bind's source path again itself: the source is opened once without following
 * links and checked on that descriptor (type, owner), then the descriptor's own file is bound
 * onto a mount point in a fresh root-only directory, and nspawn gets that path. Nothing the user
 * renames afterwards changes what is mounted.
 *
 * Why not `--bind=/proc/self/fd/N`: nspawn makes its binds in its own new mount namespace, and the
 * kernel refuses (EINVAL) a bind from a mount of another namespace, which the inherited descriptor
 * is; nspawn would also pass the descriptors on to the container's payload.
 * Placeholders (a Bind with `placeholder`) get a root-owned empty file or directory here.
 */
export async function stageBinds(binds: readonly Bind[]): Promise<StagedBinds> {
  if (!binds.some((b) => b.owners !== undefined || b.placeholder !== undefined)) return { binds: [...binds], release: async () => undefined };
  const dir = await mkdtemp(join(tmpdir(), "forage-binds-"));
  const mounted: string[] = [];
  const made: string[] = [];
  const release = async (): Promise<void> => {
    // One umount for all of them (it goes on past one that fails).
    if (mounted.length > 0) await runCommand("umount", ["--no-canonicalize", ...mounted.reverse()], { reject: false });
    for (const path of made.reverse())
      await unlink(path)
        .catch(() => rmdir(path))
        .catch(() => undefined);
    await rmdir(dir).catch(() => undefined);
  };
  const pinned: PinnedPath[] = [];
  try {
    const staged: Bind[] = [];
    const toMount: { fd: number; point: string }[] = [];
    for (const [index, bind] of binds.entries()) {
      const point = join(dir, String(index));
      if (bind.placeholder !== undefined) {
        if (bind.placeholder.kind === "directory") await mkdir(point, { mode: 0o755 });
        else await writeFile(point, bind.placeholder.text, { mode: 0o444 });
        made.push(point);
        staged.push({ source: point, target: bind.target, readOnly: true });
      } else if (bind.owners !== undefined) {
        const source = await pinnedSource(bind.source, bind.owners, point, made);
        pinned.push(source);
        toMount.push({ fd: source.handle.fd, point });
        staged.push({ source: point, target: bind.target, readOnly: bind.readOnly });
      } else {
        staged.push(bind);
      }
    }
    await bindDescriptors(toMount, mounted);
    return { binds: staged, release };
  } catch (error) {
    await release();
    throw error;
  } finally {
    for (const source of pinned) await source.handle.close();
  }
}

/** Opens `source` pinned, checks its owner, and makes its mount point `point` (of the same kind). */
async function pinnedSource(source: string, owners: readonly number[], point: string, made: string[]): Promise<PinnedPath> {
  const pinned = await openPinned(source);
  try {
    if (!owners.includes(pinned.uid)) throw new SandboxError(`${source} belongs to uid ${pinned.uid}, not to uid ${owners.join(" or ")}: the sandbox mounts only its user's own files`, "usage");
    if (pinned.kind === "directory") await mkdir(point, { mode: 0o700 });
    else await writeFile(point, "", { mode: 0o400 });
    made.push(point);
    return pinned;
  } catch (error) {
    await pinned.handle.close();
    throw error;
  }
}

/**
 * Binds each descriptor's own file onto its point, all in one process: the descriptors are its
 * fds 3, 4, … in order, the points its arguments; mount(8) gets `/proc/self/fd/N` and, with
 * --no-canonicalize, never resolves it as a path. The script is constant. `mounted` lists the
 * points bound, as far as it got.
 */
async function bindDescriptors(toMount: readonly { fd: number; point: string }[], mounted: string[]): Promise<void> {
  if (toMount.length === 0) return;
  const script = 'fd=3; for point do mount --no-canonicalize --bind --make-private "/proc/self/fd/$fd" "$point" || exit 1; fd=$((fd + 1)); done';
  const child = spawn("/bin/sh", ["-c", script, "forage-stage", ...toMount.map((m) => m.point)], { stdio: ["ignore", "ignore", "pipe", ...toMount.map((m) => m.fd)] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  });
  // Whatever got bound before a failure must come down again: all were tried in order.
  const bound = await boundPoints(toMount.map((m) => m.point));
  mounted.push(...bound);
  if (code !== 0) throw new SandboxError(`could not stage the binds in ${toMount[0]?.point ?? ""}/..: ${stderr.trim()}`, "container");
}

/** The points that are mount points now (bound), from /proc/self/mountinfo. */
async function boundPoints(points: readonly string[]): Promise<string[]> {
  const info = await readFile("/proc/self/mountinfo", "utf8");
  // Field 5 is the mount point, with space, tab, newline and backslash as octal escapes.
  const targets = new Set(info.split("\n").map((line) => (line.split(" ")[4] ?? "").replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)))));
  return points.filter((point) => targets.has(point));
}

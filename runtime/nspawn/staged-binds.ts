import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rmdir, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCommand } from "../core/run-command.js";
import { openPinned } from "../core/pinned-path.js";
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
    for (const point of mounted.reverse()) await runCommand("umount", ["--no-canonicalize", point], { reject: false });
    for (const path of made.reverse())
      await unlink(path)
        .catch(() => rmdir(path))
        .catch(() => undefined);
    await rmdir(dir).catch(() => undefined);
  };
  try {
    const staged: Bind[] = [];
    for (const [index, bind] of binds.entries()) {
      const point = join(dir, String(index));
      if (bind.placeholder !== undefined) {
        if (bind.placeholder.kind === "directory") await mkdir(point, { mode: 0o755 });
        else await writeFile(point, bind.placeholder.text, { mode: 0o444 });
        made.push(point);
        staged.push({ source: point, target: bind.target, readOnly: true });
      } else if (bind.owners !== undefined) {
        await stageOne(bind.source, bind.owners, point, made);
        mounted.push(point);
        staged.push({ source: point, target: bind.target, readOnly: bind.readOnly });
      } else {
        staged.push(bind);
      }
    }
    return { binds: staged, release };
  } catch (error) {
    await release();
    throw error;
  }
}

/** Opens `source` pinned, checks its owner, and binds the descriptor's file onto `point`. */
async function stageOne(source: string, owners: readonly number[], point: string, made: string[]): Promise<void> {
  const pinned = await openPinned(source);
  try {
    if (!owners.includes(pinned.uid)) throw new SandboxError(`${source} belongs to uid ${pinned.uid}, not to uid ${owners.join(" or ")}: the sandbox mounts only its user's own files`, "usage");
    if (pinned.kind === "directory") await mkdir(point, { mode: 0o700 });
    else await writeFile(point, "", { mode: 0o400 });
    made.push(point);
    // mount(8) gets the descriptor as its fd 3; --no-canonicalize keeps it from resolving the path.
    await bindDescriptor(pinned.handle.fd, point);
  } finally {
    await pinned.handle.close();
  }
}

function bindDescriptor(fd: number, point: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn("mount", ["--no-canonicalize", "--bind", "--make-private", "/proc/self/fd/3", point], { stdio: ["ignore", "ignore", "pipe", fd] });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new SandboxError(`could not stage a bind at ${point}: ${stderr.trim()}`, "container"))));
  });
}

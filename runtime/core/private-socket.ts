import { constants, type Stats } from "node:fs";
import { lchown, lstat, mkdir, open, rm, type FileHandle } from "node:fs/promises";
import type { Server } from "node:net";
import { dirname } from "node:path";
import { SandboxError } from "./errors.js";

/**
 * Makes the socket's directory ready: created root-owned 0755 when missing (the user must be able
 * to traverse it), refused when anyone but root could write to it, since whoever can write there
 * could replace the socket under its server (the daemon, the guard host) or its clients. A stale
 * socket is removed.
 */
export async function prepareSocketDirectory(path: string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o755 });
  // Checked and changed through one descriptor, never the path twice (no link followed).
  const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ELOOP" || error.code === "ENOTDIR") throw notRootOnly(dir, "it is a link or not a directory");
      throw error;
    },
  );
  try {
    await openForTraversal(dir, handle);
  } finally {
    await handle.close();
  }
  await rm(path, { force: true });
}

function notRootOnly(dir: string, found: string): SandboxError {
  return new SandboxError(
    `the socket directory ${dir} must be a directory owned by root that only root can write to (${found}): fix it with chown root: ${dir} && chmod 755 ${dir}, or point FORAGE_RUN_DIR elsewhere`,
    "config",
  );
}

/** Refuses a directory others could write to, and lets everyone traverse it. */
async function openForTraversal(dir: string, handle: FileHandle): Promise<void> {
  const info = await handle.stat();
  if (!onlyRootWrites(info))
    throw notRootOnly(dir, `it is owned by uid ${info.uid}, mode ${(info.mode & 0o7777).toString(8)}`);
  // Everyone may traverse to the sockets, as to /run: each socket's own owner and mode decide who
  // connects. A run directory made first by a lock (0750, by root's first in-process `up`) would
  // shut the configured user out of the daemon it is there for.
  if ((info.mode & 0o001) === 0) await handle.chmod((info.mode & 0o7777) | 0o111);
}

/** A directory only root can write to: root's, not writable by group or others, no link. */
function onlyRootWrites(info: Stats): boolean {
  return info.isDirectory() && info.uid === 0 && (info.mode & 0o022) === 0;
}

/**
 * True when `path` is a socket of root's in a directory only root can write to: what root's
 * client checks before it talks to a socket only root may reach (a socket anyone could have put
 * there would get root's commands and terminal).
 */
export async function isRootsSocket(path: string): Promise<boolean> {
  const [dir, socket] = await Promise.all([
    lstat(dirname(path)).catch(() => undefined),
    lstat(path).catch(() => undefined),
  ]);
  return dir !== undefined && onlyRootWrites(dir) && socket?.isSocket() === true && socket.uid === 0;
}

/**
 * Listens on `path` so that only root and `ownerUid` can connect, never a group.
 *
 * Why a file mode and no SO_PEERCRED: Node's `net` cannot read a peer's credentials, and the ways
 * around it (matching the peer's socket inode to a pid through /proc or `ss -xp`) look the pid up
 * after the fact, which a short-lived or exec'ing client can race. connect(2) on a unix socket
 * needs write permission on the socket file, which the kernel checks against the caller's
 * credentials at connect time: a socket owned by the user with mode 0600 admits the user, and
 * root through CAP_DAC_OVERRIDE, and nobody else — not even members of the user's primary group
 * (with `user: nobody` that is `nogroup`, shared by many services). The directory is root's
 * (prepareSocketDirectory), so the file cannot be swapped. The user can chmod their own socket,
 * which only hands out what the user already has.
 *
 * The socket is bound under umask 0177, so it is 0600 (root's) from its first instant: there is
 * no moment in which a wider mode lets someone connect before the chown.
 */
export async function listenPrivately(server: Server, path: string, ownerUid: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    // listen() binds a path synchronously: the umask is back before anything else can run.
    const umask = process.umask(0o177);
    try {
      server.listen(path, resolve);
    } finally {
      process.umask(umask);
    }
  });
  await lchown(path, ownerUid, 0);
}

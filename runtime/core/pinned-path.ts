import { constants } from "node:fs";
import { open, readlink, type FileHandle } from "node:fs/promises";
import { SandboxError } from "./errors.js";

/** Linux's O_PATH (not in Node's fs.constants): a descriptor that names a file without opening it. */
const O_PATH = 0o10000000;

/** A file or directory held open by descriptor: what was checked is what gets used. */
export interface PinnedPath {
  handle: FileHandle;
  kind: "directory" | "file";
  uid: number;
}

/**
 * Opens `path` (absolute, canonical) without following a symbolic link anywhere on the way, and
 * returns the descriptor with what it names. The final component is opened O_NOFOLLOW; a link in
 * any earlier component would make the kernel's own name for the descriptor
 * (/proc/self/fd/N) differ from `path`, so that is refused too. A directory swapped for a link
 * after this call no longer matters: users of the result go through the descriptor.
 */
export async function openPinned(path: string): Promise<PinnedPath> {
  const handle = await open(path, O_PATH | constants.O_NOFOLLOW).catch(() => undefined);
  if (handle === undefined)
    throw new SandboxError(`${path} does not exist (or cannot be opened): create it or give another path`, "usage");
  try {
    const seen = await readlink(`/proc/self/fd/${handle.fd}`);
    const info = await handle.stat();
    const kind = info.isDirectory() ? "directory" : info.isFile() ? "file" : undefined;
    if (seen !== path || kind === undefined)
      throw new SandboxError(
        `${path} is not a file or directory reached without symbolic links: give its real path`,
        "usage",
      );
    return { handle, kind, uid: info.uid };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * Opens `path` as openPinned does and requires a directory owned by one of `owners`; closes it
 * again and returns the path, for checks whose result is recorded (the bind opens it once more).
 */
export async function requirePinnedDirectory(path: string, owners: readonly number[]): Promise<string> {
  const pinned = await openPinned(path);
  await pinned.handle.close();
  if (pinned.kind !== "directory") throw new SandboxError(`${path} is not a directory`, "usage");
  if (!owners.includes(pinned.uid))
    throw new SandboxError(
      `${path} belongs to uid ${pinned.uid}, not to uid ${owners.join(" or ")}: give a directory the sandbox's user owns`,
      "usage",
    );
  return path;
}

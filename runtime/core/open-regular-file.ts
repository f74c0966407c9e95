import { constants, type Stats } from "node:fs";
import { lstat, open, type FileHandle } from "node:fs/promises";

/**
 * Opens a regular file a caller named for root to read, never through a link: looked at first
 * (opening a device or FIFO as root can have effects of its own), then opened with O_NOFOLLOW
 * and checked to be the same file, so swapping the path between the look and the open gains
 * nothing. The caller checks the owner and size on `info` (the opened file's) and closes `file`.
 * Each refusal is `refuse(why)`, `why` naming what the path is ("is a symbolic link: …").
 */
export async function openRegularFile(
  path: string,
  refuse: (why: string) => Error,
  nameIt: string,
): Promise<{ file: FileHandle; info: Stats }> {
  const seen = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    throw refuse(`cannot be read (${error.code ?? String(error)})`);
  });
  const link = `is a symbolic link: ${nameIt}`;
  if (seen.isSymbolicLink()) throw refuse(link);
  if (!seen.isFile()) throw refuse("is not a regular file");
  const file = await open(
    path,
    constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY,
  ).catch((error: NodeJS.ErrnoException) => {
    throw refuse(error.code === "ELOOP" ? link : `cannot be read (${error.code ?? String(error)})`);
  });
  const info = await file.stat();
  if (!info.isFile() || info.ino !== seen.ino || info.dev !== seen.dev) {
    await file.close();
    throw refuse("changed while it was being read");
  }
  return { file, info };
}

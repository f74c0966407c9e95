import { open, rename, rm } from "node:fs/promises";

let writes = 0;

/**
 * Writes a file whole or not at all: a new temporary file beside it (created exclusively with
 * `mode`, so it is never readable by others even for a moment, then given exactly `mode`, so a
 * narrow umask cannot take away what readers need; its group `group` when given), fsync, rename
 * over the target. A crash leaves
 * the old file or the new one, never a torn one.
 */
export async function writeFileAtomic(
  file: string,
  data: string | Uint8Array,
  mode: number,
  group?: number,
): Promise<void> {
  writes += 1;
  // pid and a counter: two writes of one file in the same process never share a temporary.
  const temporary = `${file}.tmp-${process.pid}-${writes}`;
  const handle = await open(temporary, "wx", mode);
  try {
    // A group's readers (e.g. a sandbox's agent) get it through `mode` only once it is theirs.
    if (group !== undefined) await handle.chown(-1, group);
    await handle.chmod(mode);
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temporary, file).catch(async (error: unknown) => {
    await rm(temporary, { force: true });
    throw error;
  });
}

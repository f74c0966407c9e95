import { pathUnder } from "../core/names.js";
import type { RuntimePaths } from "../core/paths.js";
import { readMetadata, writeMetadata } from "../state/metadata-store.js";
import { withLock } from "../state/lock.js";

/**
 * Lock wait for an `always` answer: the sandbox's lifecycle lock may be held by a stop or down
 * that waits for this guard; past this the name stays admitted for the run only.
 */
const lockWaitSeconds = 10;
/** The policy schema's limit on allow entries. */
const maxAllowEntries = 512;

/**
 * Adds an entry approved `always` (`name:port`) to a running sandbox's own allowlist (its
 * metadata, under its lifecycle lock, as `forage-ctl network --allow` does): restarts keep it. The
 * host table does not change (it depends on the mode and sni only); the guard admits the name
 * itself. False when the sandbox is gone, has left restricted mode, or its lock could not be had.
 */
export async function persistAllowedName(paths: RuntimePaths, sandbox: string, name: string): Promise<boolean> {
  try {
    return await withLock(
      pathUnder(paths.locksDir, sandbox),
      async () => {
        const metadata = await readMetadata(paths, sandbox);
        if (metadata?.network === null || metadata?.network === undefined || metadata.network.mode !== "restricted") return false;
        if (metadata.network.allow.length >= maxAllowEntries) return false;
        if (!metadata.network.allow.includes(name)) await writeMetadata(paths, { ...metadata, network: { ...metadata.network, allow: [...metadata.network.allow, name] } });
        return true;
      },
      lockWaitSeconds,
    );
  } catch {
    return false;
  }
}

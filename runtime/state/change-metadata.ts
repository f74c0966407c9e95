import type { RuntimePaths } from "../core/paths.js";
import { pathUnder } from "../core/names.js";
import { withLock } from "./lock.js";
import type { SandboxMetadata } from "./metadata.js";
import { readMetadata, writeMetadata } from "./metadata-store.js";

/**
 * Changes a running sandbox's metadata from a host service (the guard, the push gate) under the
 * sandbox's lifecycle lock, as `forage-ctl network --allow` does: `change` returns the metadata to
 * write, true when there is nothing to write, or false when it may not be done. False too when
 * the sandbox is gone or the lock could not be had within `waitSeconds` (a stop or down may hold
 * it while it waits for that very service), so the caller says what it does instead.
 *
 * @example await changeMetadata(paths, "fix-42", 10, (m) => m.network === null ? false : { ...m, network: { ...m.network, allow: [...m.network.allow, "x.example:443"] } })
 */
export async function changeMetadata(
  paths: RuntimePaths,
  sandbox: string,
  waitSeconds: number,
  change: (metadata: SandboxMetadata) => SandboxMetadata | boolean,
): Promise<boolean> {
  try {
    return await withLock(
      pathUnder(paths.locksDir, sandbox),
      async () => {
        const metadata = await readMetadata(paths, sandbox);
        const changed = metadata === undefined ? false : change(metadata);
        if (typeof changed === "boolean") return changed;
        await writeMetadata(paths, changed);
        return true;
      },
      waitSeconds,
    );
  } catch {
    return false;
  }
}

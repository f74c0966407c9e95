import type { RuntimePaths } from "../../core/paths.js";
import { changeMetadata } from "../../state/change-metadata.js";

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
export function persistAllowedName(paths: RuntimePaths, sandbox: string, name: string): Promise<boolean> {
  return changeMetadata(paths, sandbox, lockWaitSeconds, (metadata) => {
    const network = metadata.network;
    if (network === null || network.mode !== "restricted" || network.allow.length >= maxAllowEntries) return false;
    return network.allow.includes(name) || { ...metadata, network: { ...network, allow: [...network.allow, name] } };
  });
}

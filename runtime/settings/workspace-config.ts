import { realpath } from "node:fs/promises";
import { dirname, relative } from "node:path";
import { runtimePaths } from "../paths.js";
import { SandboxError } from "../sandbox/errors.js";
import { listMetadata } from "../state/metadata-store.js";

/** Where sandboxes are recorded when no settings are loaded yet (the settings being chosen here). */
const defaultStateDir = "/var/lib/forage";

/**
 * Refuses a config found in the current directory when that directory lies *below* a sandbox's
 * writable workspace: its agent may have written it, and a TypeScript config is a program that
 * `sudo forage-ctl` would run as root. A config at a workspace's top is a protected path (read-only
 * to the agent, present or not), so it is not refused. Sandboxes are looked up in
 * FORAGE_STATE_DIR or /var/lib/forage: a custom `stateDir` in the config itself is not known yet.
 */
export async function refuseAgentWrittenConfig(configPath: string, env: NodeJS.ProcessEnv): Promise<void> {
  const dir = await realpath(dirname(configPath)).catch(() => undefined);
  if (dir === undefined) return;
  const sandboxes = await listMetadata(runtimePaths(defaultStateDir, env)).catch(() => []);
  for (const sandbox of sandboxes) {
    for (const mount of [sandbox.workspace, ...sandbox.mounts]) {
      const below = relative(mount.hostPath, dir);
      if (below === "" || below.startsWith("..") || below.startsWith("/")) continue;
      throw new SandboxError(`${configPath} lies inside sandbox ${sandbox.name}'s workspace, where its agent can write: name a config you trust with --config (or FORAGE_CONFIG)`, "config");
    }
  }
}

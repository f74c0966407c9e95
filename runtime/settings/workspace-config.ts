import { realpath, stat } from "node:fs/promises";
import { dirname, relative } from "node:path";
import { runtimePaths } from "../core/paths.js";
import { SandboxError } from "../core/errors.js";
import { listMetadata } from "../state/metadata-store.js";

/** Where sandboxes are recorded when no settings are loaded yet (the settings being chosen here). */
const defaultStateDir = "/var/lib/forage";

/**
 * Refuses a config found in the current directory when its agent may have written it: below a
 * sandbox's writable workspace, or at its top when the file changed since the sandbox was made
 * (a config at the top is a protected path, but a template may lift it with
 * `workspace.unprotected`, and extra-container guards only paths present at `up`). The file's
 * ctime decides: nobody can set it back, unlike mtime. A TypeScript config is a program that
 * `sudo forage-ctl` would run as root. Sandboxes are looked up in FORAGE_STATE_DIR or
 * /var/lib/forage: a custom `stateDir` in the config itself is not known yet.
 */
export async function refuseAgentWrittenConfig(configPath: string, env: NodeJS.ProcessEnv): Promise<void> {
  const dir = await realpath(dirname(configPath)).catch(() => undefined);
  if (dir === undefined) return;
  const sandboxes = await listMetadata(runtimePaths(defaultStateDir, env)).catch(() => []);
  const changed = (await stat(configPath).catch(() => undefined))?.ctimeMs ?? 0;
  for (const sandbox of sandboxes) {
    for (const mount of [sandbox.workspace, ...sandbox.mounts]) {
      const below = relative(mount.hostPath, dir);
      if (below.startsWith("..") || below.startsWith("/")) continue;
      if (below === "" && changed < Date.parse(sandbox.createdAt)) continue;
      const where =
        below === ""
          ? `changed since sandbox ${sandbox.name} was made, in its workspace`
          : `lies inside sandbox ${sandbox.name}'s workspace`;
      throw new SandboxError(
        `${configPath} ${where}, where its agent can write: name a config you trust with --config (or FORAGE_CONFIG)`,
        "config",
      );
    }
  }
}

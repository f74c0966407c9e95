import { resolve } from "node:path";
import { findConfig } from "../../generator/config/find-config.js";

/** Where the NixOS module publishes the generated settings: the last place looked. */
export const defaultSettingsFile = "/etc/forage/forage.json";

/** Why this file: the user named it, the environment did, it was found here, or nothing was. */
export type SettingsOrigin = "--config" | "FORAGE_CONFIG" | "current directory" | "default";

/** The settings file sandbox commands (and the daemon) run from, and how it was chosen. */
export interface SettingsFile {
  /** Absolute: handed to the daemon as is, whose working directory is not the caller's. */
  path: string;
  /** As the user knows it: the --config / FORAGE_CONFIG value, `./forage.config.ts`, or the default. */
  shown: string;
  origin: SettingsOrigin;
  /** The directory searched for a config (named when nothing was found). */
  searched: string;
}

/**
 * The one place sandbox commands and the daemon choose their settings:
 * `--config` > FORAGE_CONFIG > ./forage.config.ts, ./forage.yaml, ./forage.json (the discovery
 * `generate` and `validate` use) > /etc/forage/forage.json. An empty FORAGE_CONFIG counts as
 * unset, so `FORAGE_CONFIG= forage-ctl …` falls back to discovery.
 *
 * @example
 * await settingsFile(undefined, {}, "/home/alice/proj")
 * // → { path: "/home/alice/proj/forage.config.ts", shown: "./forage.config.ts", origin: "current directory", … }
 */
export async function settingsFile(
  explicit: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): Promise<SettingsFile> {
  if (explicit !== undefined)
    return { path: resolve(cwd, explicit), shown: explicit, origin: "--config", searched: cwd };
  const fromEnv = env.FORAGE_CONFIG;
  if (fromEnv !== undefined && fromEnv !== "")
    return { path: resolve(cwd, fromEnv), shown: fromEnv, origin: "FORAGE_CONFIG", searched: cwd };
  const found = await findConfig(cwd);
  if (found !== undefined) {
    // Loaded only here: it reads every sandbox's metadata, which commands naming their settings skip.
    const { refuseAgentWrittenConfig } = await import("./workspace-config.js");
    await refuseAgentWrittenConfig(resolve(cwd, found), env);
    return { path: resolve(cwd, found), shown: `./${found}`, origin: "current directory", searched: cwd };
  }
  return { path: defaultSettingsFile, shown: defaultSettingsFile, origin: "default", searched: cwd };
}

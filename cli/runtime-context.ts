import { runtimePaths } from "../runtime/core/paths.js";
import type { RuntimeContext } from "../runtime/core/context.js";
import { loadSettings } from "../runtime/settings/load-settings.js";
import { settingsFile, type SettingsFile } from "../runtime/settings/settings-file.js";
import { printConfigNotes } from "./output.js";
import { UserError } from "../runtime/core/errors.js";
import { warn } from "./warn.js";

/** The context sandbox commands run in, and the settings file it was loaded from. */
export interface LoadedRuntime {
  file: SettingsFile;
  context: RuntimeContext;
}

/**
 * Loads the settings chosen by settingsFile (--config > FORAGE_CONFIG > a config in the current
 * directory > /etc/forage/forage.json) and the state paths. Root only. A config's own problems
 * stay a ConfigError (printed with positions, exit 6); a missing or unreadable settings file is
 * a config error too; anything else is a bug and is left to say so.
 */
export async function loadRuntime(configOption: string | undefined): Promise<LoadedRuntime> {
  if (typeof process.getuid === "function" && process.getuid() !== 0) {
    throw new UserError("this command needs root (namespaces, mounts, nspawn): run it with sudo", "general");
  }
  const file = await settingsFile(configOption);
  const { settings, notes } = await loadSettings(file);
  printConfigNotes(notes);
  return { file, context: { settings, paths: runtimePaths(settings.host.stateDir), warn } };
}

/** loadRuntime's context alone: what most root-only commands need. */
export async function runtimeContext(configOption: string | undefined): Promise<RuntimeContext> {
  return (await loadRuntime(configOption)).context;
}

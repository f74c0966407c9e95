import { ConfigError } from "../generator/config/diagnostic.js";
import { runtimePaths } from "../runtime/paths.js";
import type { RuntimeContext } from "../runtime/sandbox/context.js";
import { loadSettings } from "../runtime/settings/load-settings.js";
import { ExitCode } from "./exit-codes.js";
import { printConfigNotes } from "./output.js";
import { UserError } from "./user-error.js";

/**
 * The context sandbox commands run in: settings from --config / FORAGE_CONFIG (a config file or
 * a generated forage.json, default /etc/forage/forage.json) and the state paths.
 */
export async function runtimeContext(configOption: string | undefined): Promise<RuntimeContext> {
  if (typeof process.getuid === "function" && process.getuid() !== 0) {
    throw new UserError("this command needs root (namespaces, mounts, nspawn): run it with sudo", ExitCode.general);
  }
  try {
    const { settings, notes } = await loadSettings(configOption);
    printConfigNotes(notes);
    return {
      settings,
      paths: runtimePaths(settings.host.stateDir),
      warn: (message) => process.stderr.write(`forage-ctl: warning: ${message}\n`),
    };
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new UserError(error instanceof Error ? error.message : String(error), ExitCode.config);
  }
}

import { configFileNames } from "../generator/config/find-config.js";
import { loadConfig, type LoadedConfig } from "../generator/config/load-config.js";
import { resolveModel } from "../generator/model/resolve.js";
import type { Model } from "../generator/model/model.js";
import { settingsFile } from "../runtime/settings/settings-file.js";
import { printConfigNotes } from "./output.js";
import { UserError } from "../runtime/core/errors.js";

/**
 * Finds and loads the config as sandbox commands do (`--config`, else FORAGE_CONFIG, else
 * ./forage.config.ts, ./forage.yaml, ./forage.json), but never falls back to the installed
 * /etc/forage/forage.json: generate and validate work on the user's own config.
 */
export async function loadConfigFromCli(explicit: string | undefined): Promise<LoadedConfig> {
  const file = await settingsFile(explicit);
  if (file.origin === "default") {
    throw new UserError(`no config found: looked for ${configFileNames.join(", ")} in ${process.cwd()}; pass --config PATH or run \`forage-ctl init\``, "config");
  }
  const loaded = await loadConfig(file.path);
  printConfigNotes(loaded.notes);
  return loaded;
}

/** Loads the config and resolves it into the model targets are generated from. */
export async function loadModelFromCli(explicit: string | undefined): Promise<Model> {
  const loaded = await loadConfigFromCli(explicit);
  return resolveModel(loaded.config, loaded.file);
}

import { findConfig, configFileNames } from "../generator/config/find-config.js";
import { loadConfig, type LoadedConfig } from "../generator/config/load-config.js";
import { resolveModel } from "../generator/model/resolve.js";
import type { Model } from "../generator/model/model.js";
import { ExitCode } from "./exit-codes.js";
import { printConfigNotes } from "./output.js";
import { UserError } from "./user-error.js";

/** Finds and loads the config (`--config`, else ./forage.config.ts, ./forage.yaml, ./forage.json), and prints its notes. */
export async function loadConfigFromCli(explicit: string | undefined): Promise<LoadedConfig> {
  const path = await findConfig(explicit ?? process.env.FORAGE_CONFIG);
  if (path === undefined) {
    throw new UserError(
      `no config found: looked for ${configFileNames.join(", ")} in ${process.cwd()}; pass --config PATH or run \`forage-ctl init\``,
      ExitCode.config,
    );
  }
  const loaded = await loadConfig(path);
  printConfigNotes(loaded.notes);
  return loaded;
}

/** Loads the config and resolves it into the model targets are generated from. */
export async function loadModelFromCli(explicit: string | undefined): Promise<Model> {
  const loaded = await loadConfigFromCli(explicit);
  return resolveModel(loaded.config, loaded.file);
}

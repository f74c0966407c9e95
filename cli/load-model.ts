import { readFile } from "node:fs/promises";
import { extname } from "node:path";
import { configFileNames } from "../generator/config/find-config.js";
import { displayPath, loadConfig, type LoadedConfig } from "../generator/config/load-config.js";
import type { Model } from "../generator/model/model.js";
import { isGeneratedSettings, loadSettings } from "../runtime/settings/load-settings.js";
import { settingsFile } from "../runtime/settings/settings-file.js";
import { printConfigNotes } from "./output.js";
import { UserError } from "../runtime/core/errors.js";

/**
 * Finds and loads the user's own config as sandbox commands find theirs (`--config`, else
 * FORAGE_CONFIG, else ./forage.config.ts, ./forage.yaml, ./forage.json), for the commands that
 * read a config to write something from it (generate, template add): never the installed
 * /etc/forage/forage.json, nor any generated forage.json, which holds no config to compile or edit.
 */
export async function loadConfigFromCli(explicit: string | undefined): Promise<LoadedConfig> {
  const file = await settingsFile(explicit);
  if (file.origin === "default") {
    throw new UserError(
      `no config found: looked for ${configFileNames.join(", ")} in ${process.cwd()}; pass --config PATH or run \`forage-ctl init\``,
      "config",
    );
  }
  if (extname(file.path) === ".json" && isGeneratedSettings(await readFile(file.path, "utf8").catch(() => ""))) {
    throw new UserError(
      `${file.shown} is a forage.json forage-ctl generated, not a config: use the config it was generated from (its "$comment" names it)`,
      "config",
    );
  }
  const loaded = await loadConfig(file.path);
  printConfigNotes(loaded.notes);
  return loaded;
}

/** The settings `up` would run from, and the file's name as messages show it. */
export interface CliSettings {
  settings: Model;
  shown: string;
}

/**
 * The settings `up` runs from, chosen and read exactly as `up` does (settingsFile, loadSettings):
 * a config, or a generated forage.json (the NixOS module's /etc/forage/forage.json is the last
 * fallback). For validate and templates, which answer "what would up use?".
 */
export async function loadSettingsFromCli(explicit: string | undefined): Promise<CliSettings> {
  const file = await settingsFile(explicit);
  const { settings, notes } = await loadSettings(file);
  printConfigNotes(notes);
  return { settings, shown: displayPath(file.path, process.cwd()) };
}

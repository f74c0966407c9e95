import type { Command } from "commander";
import { formatDiagnostic } from "../../generator/config/diagnostic.js";
import { encodeSettings } from "../../generator/model/settings-codec.js";
import { loadSettings } from "../../runtime/settings/load-settings.js";
import { settingsFile } from "../../runtime/settings/settings-file.js";

/**
 * Hidden: loads the settings file and prints them as forage.json holds them, with the config's
 * notes. The daemon runs it as the configured user to read a TypeScript config again after an
 * edit (runtime/daemon/settings-loader.ts): the config's program never runs as root for a user.
 */
export function registerSettingsJson(program: Command): void {
  program
    .command("settings-json", { hidden: true })
    .description("Print the settings file's settings as forage.json holds them (the daemon's, run as its user)")
    .action(async () => {
      const { settings, notes } = await loadSettings(await settingsFile(program.opts<{ config?: string }>().config));
      process.stdout.write(
        `${JSON.stringify({ settings: encodeSettings(settings), notes: notes.map(formatDiagnostic) })}\n`,
      );
    });
}

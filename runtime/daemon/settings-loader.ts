import { extname } from "node:path";
import type { Model } from "../../generator/model/model.js";
import { decodeSettings } from "../../generator/model/settings-codec.js";
import type { HostUser } from "../core/host-user.js";
import { runCommand } from "../core/run-command.js";
import { loadSettings, SettingsError } from "../settings/load-settings.js";
import type { SettingsFile } from "../settings/settings-file.js";
import type { SettingsLoader } from "./followed-settings.js";

/** Longer than any config takes to load; a config that hangs must not hold the user's commands. */
const loadTimeoutMs = 60_000;

/**
 * How the daemon reads its settings file again for a user's request. YAML, JSON and a generated
 * forage.json are data: read here, as root reads them. A TypeScript config is a program, and the
 * user may be the one who edited it: it runs in a process of the configured user's (`cli`, that
 * process's entry, with its hidden `settings-json` command), never as root, and what it prints is
 * checked by the settings codec like any forage.json. Root's own commands run it as root, as
 * `sudo forage-ctl` does.
 */
export function settingsLoader(file: SettingsFile, user: HostUser, cli: string): SettingsLoader {
  const extension = extname(file.path);
  if (extension !== ".ts" && extension !== ".mts") {
    return async () => (await loadSettings(file)).settings;
  }
  return async () => {
    const result = await runCommand(process.execPath, [cli, "--config", file.path, "settings-json"], {
      uid: user.uid,
      gid: user.gid,
      cwd: "/",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: user.home },
      timeoutMs: loadTimeoutMs,
      reject: false,
    });
    if (result.failed) {
      const said = result.stderr.trim();
      throw new SettingsError(
        said !== ""
          ? said
          : `loading ${file.path} as ${user.name} failed (${result.timedOut ? "timed out" : `exit ${String(result.exitCode)}`})`,
      );
    }
    return readPrinted(result.stdout, file.path);
  };
}

/** The settings-json command's output: its settings, through the codec (its notes are left unsaid, as before). */
function readPrinted(stdout: string, path: string): Model {
  let printed: unknown;
  try {
    printed = JSON.parse(stdout);
  } catch {
    throw new SettingsError(`loading ${path} as the configured user printed no settings`);
  }
  const fields = typeof printed === "object" && printed !== null ? (printed as Record<string, unknown>) : {};
  return decodeSettings(fields.settings, path);
}

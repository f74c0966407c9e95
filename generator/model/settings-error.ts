import { UserError } from "../lib/user-error.js";

/**
 * Runtime settings could not be loaded (missing, unreadable, not JSON, or not a document this
 * forage-ctl wrote): a config error (exit 6) whose message names the file and how to fix it.
 */
export class SettingsError extends UserError {
  override name = "SettingsError";
  constructor(message: string) {
    super(message, "config");
  }
}

/** No settings file at all where forage-ctl looked (none named, none found): a SettingsError. */
export class NoSettingsError extends SettingsError {
  override name = "NoSettingsError";
}

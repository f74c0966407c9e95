import { realpath } from "node:fs/promises";
import { daemonHello, type DaemonHello } from "../runtime/daemon/client.js";
import { SandboxError } from "../runtime/core/errors.js";
import { settingsFile, type SettingsFile } from "../runtime/settings/settings-file.js";

/** True when both paths name one file (links resolved; a missing file compares by its path). */
export async function sameFile(a: string, b: string): Promise<boolean> {
  const real = (path: string): Promise<string> => realpath(path).catch(() => path);
  return (await real(a)) === (await real(b));
}

/**
 * Root's `up` runs from `file` itself, but commands run without sudo get whatever the running
 * daemon serves: when that is another file, say so, naming both and how to switch.
 */
export async function warnIfDaemonServesOther(
  hello: DaemonHello | null,
  file: SettingsFile,
  warn: (message: string) => void,
): Promise<void> {
  // A daemon older than `hello` cannot say; nothing to compare.
  if (hello === null || (await sameFile(hello.settings, file.path))) return;
  warn(
    `the running forage daemon (pid ${hello.pid}) serves ${hello.settings}, not ${file.path}: this command uses ${file.shown} (as root), ` +
      "but commands run without sudo get the daemon's settings. To switch it: forage-ctl daemon --stop, then run this again (NixOS: the forage service serves /etc/forage/forage.json)",
  );
}

/**
 * A user's command goes to the daemon, which never loads a user's config (a config names host
 * paths to mount, and the daemon mounts them as root). When the user's own settings (--config,
 * FORAGE_CONFIG or a config in the current directory) are not what the daemon serves, one line
 * says so.
 */
export async function noteIfDaemonServesOther(
  configOption: string | undefined,
  note: (message: string) => void,
  path?: string,
): Promise<void> {
  const file = await settingsFile(configOption);
  if (file.origin === "default") return;
  let hello: DaemonHello | null;
  try {
    hello = await daemonHello(path);
  } catch (error) {
    // Unreachable, or no answer: the command itself reports that.
    if (error instanceof SandboxError) return;
    throw error;
  }
  if (hello === null || (await sameFile(hello.settings, file.path))) return;
  note(
    `the daemon serves ${hello.settings}, not ${file.shown} (it never loads a user's config; sudo forage-ctl runs from ${file.shown})`,
  );
}

import { readFileSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { packageRoot } from "./package-root.js";

/**
 * This forage-ctl's build: its version, when this file was written and where it is installed,
 * e.g. `0.1.0+1795690000000@/usr/lib/node_modules/forage`. The daemon says its own in `hello`, so a root command
 * hands work to a running daemon only when it runs the very same code (an upgrade without a
 * daemon restart does not count). The change time, not the modification time: the Nix store and
 * npm's tarballs set every mtime to one fixed date, while a file's ctime is when it was written
 * here (each build, each install); the installed path tells Nix store paths apart (as it is,
 * not hashed: node:crypto alone would add ~7 ms to every forage-ctl start).
 */
export function buildId(): string {
  const root = packageRoot();
  const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version?: unknown };
  const written = Math.floor(statSync(fileURLToPath(import.meta.url)).ctimeMs);
  return `${String(version)}+${written}@${realpathSync(root)}`;
}

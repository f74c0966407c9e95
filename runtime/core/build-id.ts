import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { packageRoot } from "./package-root.js";

/**
 * This forage-ctl's build: its version and when its code was installed (this file's mtime), e.g.
 * `0.1.0+1795690000000`. The daemon says its own in `hello`, so a root command hands work to a
 * running daemon only when it runs the very same code (an upgrade without a daemon restart
 * does not count).
 */
export function buildId(): string {
  const { version } = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { version?: unknown };
  return `${String(version)}+${Math.floor(statSync(fileURLToPath(import.meta.url)).mtimeMs)}`;
}

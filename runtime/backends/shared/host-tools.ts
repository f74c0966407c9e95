import { findExecutable } from "../../core/find-executable.js";
import { systemProgramDirs } from "../../core/user-command-path.js";

/**
 * Why this host cannot run nspawn sandboxes at all (tools, root), or undefined: every nspawn
 * runtime needs this first.
 */
export function nspawnUnavailable(): Promise<string | undefined> {
  return hostToolsUnavailable(["systemd-nspawn", "nsenter", "ip", "flock", "mount"]);
}

/** Why this host lacks what a runtime needs of it (these tools, and root), or undefined. */
export async function hostToolsUnavailable(tools: readonly string[]): Promise<string | undefined> {
  const found = await Promise.all(tools.map((tool) => findExecutable([tool], systemProgramDirs)));
  const missing = tools.filter((_, i) => found[i] === undefined);
  if (missing.length > 0)
    return `missing ${missing.join(", ")} (Debian/Ubuntu: apt-get install systemd-container iproute2 util-linux)`;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  return isRoot ? undefined : "needs root (or the forage daemon)";
}

import { join } from "node:path";
import { packageRoot } from "../core/package-root.js";

/** The constant agent launcher script bound into host-root sandboxes. */
export function agentLauncherPath(): string {
  return join(packageRoot(), "runtime/assets/forage-agent");
}

/** The constant /etc/profile of host-root sandboxes (PATH with the agent launchers first). */
export function profileAssetPath(): string {
  return join(packageRoot(), "runtime/assets/profile");
}

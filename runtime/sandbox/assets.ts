import { join } from "node:path";
import { packageRoot } from "../package-root.js";

/** The constant agent launcher script bound into host-root sandboxes. */
export function agentLauncherPath(): string {
  return join(packageRoot(), "runtime/assets/forage-agent");
}

import { lookupHostUser } from "./host-user.js";
import type { RuntimeContext } from "./context.js";

/** The configured user's home on this host ("~/" in the config), or /nonexistent without one. */
export async function ownerHome(context: RuntimeContext): Promise<string> {
  return (await lookupHostUser(context.settings.host.user))?.home ?? "/nonexistent";
}

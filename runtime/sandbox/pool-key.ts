import { createHash } from "node:crypto";
import type { TemplateModel } from "../../generator/model/model.js";
import type { RuntimeContext } from "../core/context.js";

/**
 * What a warm pool's member was made from, as 16 hex digits: its template as resolved and the
 * host's settings. A member whose key is not its template's now is stale (the config changed
 * since it started): it is never claimed, and the daemon replaces it.
 */
export function poolKey(context: Pick<RuntimeContext, "settings">, template: TemplateModel): string {
  return createHash("sha256")
    .update(JSON.stringify({ template, host: context.settings.host }))
    .digest("hex")
    .slice(0, 16);
}

/** Pool members' names: `pool-` and 8 hex digits (a user's `up` of such a name is theirs to make, and then refused as taken). */
export const memberNamePattern = /^pool-[0-9a-f]{8}$/;

import type { RuntimeContext } from "../core/context.js";
import { SandboxError } from "../core/errors.js";
import { readMetadata } from "./metadata-store.js";
import type { SandboxMetadata } from "./metadata.js";

/**
 * The sandbox's metadata, or a not-found error naming how to list the sandboxes there are. A warm
 * pool's member is refused unless `members` allows it (status): nothing may run in one before an
 * `up` claims it, since the claim writes its root's files as they were laid out.
 */
export async function requireSandbox(
  context: RuntimeContext,
  name: string,
  members: "refused" | "allowed" = "refused",
): Promise<SandboxMetadata> {
  const metadata = await readMetadata(context.paths, name);
  if (metadata === undefined)
    throw new SandboxError(`sandbox "${name}" does not exist (see forage-ctl ps)`, "not-found");
  if (metadata.pool !== undefined && members === "refused")
    throw new SandboxError(
      `sandbox "${name}" is a member of template "${metadata.template}"'s warm pool, waiting for an up to claim it (forage-ctl up NAME -t ${metadata.template}); forage-ctl down ${name} removes it`,
      "general",
    );
  return metadata;
}

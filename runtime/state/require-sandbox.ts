import type { RuntimeContext } from "../core/context.js";
import { SandboxError } from "../core/errors.js";
import { readMetadata } from "./metadata-store.js";
import type { SandboxMetadata } from "./metadata.js";

/** The sandbox's metadata, or a not-found error naming how to list the sandboxes there are. */
export async function requireSandbox(context: RuntimeContext, name: string): Promise<SandboxMetadata> {
  const metadata = await readMetadata(context.paths, name);
  if (metadata === undefined)
    throw new SandboxError(`sandbox "${name}" does not exist (see forage-ctl ps)`, "not-found");
  return metadata;
}

import { backendOf } from "../backends/registry.js";
import type { SavedCheckpoint } from "../backends/backend.js";
import type { RuntimeContext } from "../core/context.js";
import { SandboxError } from "../core/errors.js";
import type { SandboxMetadata } from "../state/metadata.js";

/** The sandbox's checkpoint when it is saved now, or undefined (its runtime has none). */
export async function checkpointOf(
  context: RuntimeContext,
  metadata: SandboxMetadata,
): Promise<SavedCheckpoint | undefined> {
  if (metadata.pid !== null || metadata.cgroup === null) return undefined;
  return backendOf(metadata.runtime).checkpoints?.saved(context, metadata);
}

/** Why a sandbox that is not running refuses a command: stopped, or checkpointed. */
export async function notRunning(context: RuntimeContext, metadata: SandboxMetadata): Promise<SandboxError> {
  const { name } = metadata;
  return (await checkpointOf(context, metadata)) === undefined
    ? new SandboxError(`sandbox "${name}" is not running (start it with forage-ctl start ${name})`, "container")
    : new SandboxError(
        `sandbox "${name}" is checkpointed (forage-ctl restore ${name} runs it again where it was)`,
        "container",
      );
}

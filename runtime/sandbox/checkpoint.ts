import { backendOf } from "../backends/registry.js";
import type { Checkpoints, SavedCheckpoint } from "../backends/backend.js";
import { recordEvent } from "../core/audit-log.js";
import type { RuntimeContext } from "../core/context.js";
import { SandboxError } from "../core/errors.js";
import { assertSandboxName } from "../core/names.js";
import { writeMetadata } from "../state/metadata-store.js";
import type { SandboxMetadata } from "../state/metadata.js";
import { requireSandbox } from "../state/require-sandbox.js";
import { withSandboxLock } from "../state/sandbox-lock.js";
import { isRunning } from "./start-stop.js";

/*
 * `forage-ctl checkpoint` and `restore`: a running sandbox saved whole, memory included, and run
 * again where it was, on the runtimes that can (Backend.checkpoints). A saved sandbox has no pid
 * and runs nothing; it keeps its root, network and cgroup (so the health monitor, the daemon's
 * services and gc leave it alone, and `stop`, `start` and `down` clean it up as any other).
 */

/** Saves the running sandbox `name` (its processes end); refused, nothing changed, where it cannot be. */
export function checkpointSandbox(
  context: RuntimeContext,
  name: string,
  options: { waitSeconds: number; progress?: (line: string) => void },
): Promise<SavedCheckpoint> {
  assertSandboxName(name);
  return withSandboxLock(context, name, async () => {
    const metadata = await requireSandbox(context, name);
    const checkpoints = checkpointsOf(metadata);
    if (!(await isRunning(context, metadata)))
      throw new SandboxError(
        `sandbox "${name}" is not running: only a running sandbox can be checkpointed`,
        "container",
      );
    const saved = await checkpoints.save(context, metadata, options);
    await writeMetadata(context.paths, { ...metadata, pid: null });
    await recordEvent(context.paths, name, "checkpoint", { detail: `${saved.bytes} bytes` });
    return saved;
  });
}

/** Runs the checkpointed sandbox `name` again from its checkpoint. */
export function restoreSandbox(context: RuntimeContext, name: string): Promise<void> {
  assertSandboxName(name);
  return withSandboxLock(context, name, async () => {
    const metadata = await requireSandbox(context, name);
    const checkpoints = checkpointsOf(metadata);
    if (await isRunning(context, metadata))
      throw new SandboxError(`sandbox "${name}" is running: restore runs a checkpointed one again`, "usage");
    const restored = await checkpoints.restore(context, metadata);
    await writeMetadata(context.paths, restored);
    await recordEvent(context.paths, name, "restore");
  });
}

function checkpointsOf(metadata: SandboxMetadata): Checkpoints {
  const { checkpoints } = backendOf(metadata.runtime);
  if (checkpoints === undefined)
    throw new SandboxError(
      `sandbox "${metadata.name}" runs on the ${metadata.runtime} runtime, which cannot checkpoint: only a gvisor sandbox can (runtime: gvisor in its template)`,
      "usage",
    );
  return checkpoints;
}

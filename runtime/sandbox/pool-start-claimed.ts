import type { TemplateModel } from "../../generator/model/model.js";
import { backendOf } from "../backends/registry.js";
import { recordEvent } from "../core/audit-log.js";
import type { RuntimeContext } from "../core/context.js";
import { timed } from "../core/phase-clock.js";
import { linkOf, prepareNetwork, startNetworkGuard } from "../gates/network/sandbox-network.js";
import { claimedBinds, secretsBinds } from "../provision/sandbox-binds.js";
import { useFolders } from "./start-stop.js";
import { startSshd } from "./sshd.js";
import { writeMetadata } from "../state/metadata-store.js";
import type { SandboxMetadata } from "../state/metadata.js";

/**
 * startSandbox's part for an `up` that took a warm pool's member (takeMember): the container
 * runs already, with nothing of the sandbox's. Its network gets the sandbox's policy (the
 * member's table refused everything) and its guard; its workspace folders are joined; its binds
 * (workspace, mounts, stores, agents' config, records, context, sockets, secrets) and hostname
 * are put into the running container by its runtime (Backend.adopt), each bind checked and
 * pinned as a cold start's is. Then the metadata, sshd and the start event, as startSandbox.
 * A failure leaves the rest to up, which removes the sandbox (container included).
 */
export async function startClaimed(
  context: RuntimeContext,
  given: SandboxMetadata,
  template: TemplateModel,
): Promise<SandboxMetadata> {
  const { clock } = context;
  const backend = backendOf(given.runtime);
  if (backend.adopt === undefined)
    throw new Error(`internal: runtime ${given.runtime} keeps no pool, and its member was taken`);
  const prepared = await timed(clock, "claim: network", () => prepareNetwork(context, given, template));
  const guarded = timed(clock, "claim: network guard (concurrent)", () =>
    startNetworkGuard(context, prepared, linkOf(context, prepared).namespacePath),
  );
  guarded.catch(() => undefined);
  await timed(clock, "claim: folders", () => useFolders(context, prepared));
  const binds = await timed(clock, "claim: binds", async () => [
    ...(await claimedBinds(context, prepared, template, { pinnedBinds: true })),
    ...secretsBinds(context, prepared),
  ]);
  try {
    await backend.adopt(context, prepared, template, binds);
  } catch (error) {
    // Recorded, so that up's removal of the sandbox stops the guard too.
    const running = await guarded.catch(() => undefined);
    if (running !== undefined) await writeMetadata(context.paths, running);
    throw error;
  }
  const started = await timed(clock, "claim: wait for the guard", () => guarded);
  await timed(clock, "start: metadata, sshd, event", async () => {
    await writeMetadata(context.paths, started);
    if (template.ssh && !backend.capabilities.ownInit) await startSshd(context, started);
    await recordEvent(context.paths, started.name, "start");
  });
  return started;
}

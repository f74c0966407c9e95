import type { TemplateModel } from "../../generator/model/model.js";
import { backendOf } from "../backends/registry.js";
import { recordEvent } from "../core/audit-log.js";
import type { RuntimeContext } from "../core/context.js";
import { timed } from "../core/phase-clock.js";
import { linkOf, loadNetworkPolicy, startNetworkGuard, writeNetworkRecords } from "../gates/network/sandbox-network.js";
import { claimedBinds, secretsBinds } from "../provision/sandbox-binds.js";
import { useFolders } from "./start-stop.js";
import { startSshd } from "./sshd.js";
import { writeMetadata } from "../state/metadata-store.js";
import type { SandboxMetadata } from "../state/metadata.js";

/**
 * startSandbox's part for an `up` that took a warm pool's member (takeMember): the container
 * runs already, with nothing of the sandbox's. Its network gets the sandbox's policy (the
 * member's table refused everything) and its guard, while its workspace folders are joined and
 * its binds (workspace, mounts, stores, agents' config, records, context, sockets, secrets) and
 * hostname are put into the running container by its runtime (Backend.adopt), each bind checked
 * and pinned as a cold start's is. Then the metadata, sshd and the start event, as startSandbox.
 * A failure leaves the rest to up, which removes the sandbox (container included).
 */
export async function startClaimed(
  context: RuntimeContext,
  given: SandboxMetadata,
  template: TemplateModel,
): Promise<SandboxMetadata> {
  const { clock } = context;
  const backend = backendOf(given.runtime);
  const { adopt } = backend;
  if (adopt === undefined)
    throw new Error(`internal: runtime ${given.runtime} keeps no pool, and its member was taken`);
  await timed(clock, "claim: network records", () => writeNetworkRecords(context, given));
  // The sandbox's table and guard, beside its folders and binds: nothing inside runs before both are done.
  const fenced = timed(clock, "claim: network (concurrent)", async () =>
    startNetworkGuard(context, await loadNetworkPolicy(context, given, template), linkOf(context, given).namespacePath),
  );
  const adopted = timed(clock, "claim: folders and binds (concurrent)", async () => {
    const [, binds] = await Promise.all([
      useFolders(context, given),
      claimedBinds(context, given, template, { pinnedBinds: true }),
    ]);
    await adopt(context, given, template, [...binds, ...secretsBinds(context, given)]);
  });
  const [network, adoption] = await Promise.allSettled([fenced, adopted]);
  if (network.status === "rejected" || adoption.status === "rejected") {
    // Recorded, so that up's removal of the sandbox stops the guard too.
    if (network.status === "fulfilled") await writeMetadata(context.paths, network.value);
    throw network.status === "rejected" ? network.reason : (adoption as PromiseRejectedResult).reason;
  }
  const started = network.value;
  await timed(clock, "start: metadata, sshd, event", async () => {
    await writeMetadata(context.paths, started);
    if (template.ssh && !backend.capabilities.ownInit) await startSshd(context, started);
    await recordEvent(context.paths, started.name, "start");
  });
  return started;
}

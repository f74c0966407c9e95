import { rename, rm } from "node:fs/promises";
import type { TemplateModel } from "../../generator/model/model.js";
import type { RuntimeContext } from "../core/context.js";
import { eventsPath, metadataPath, sandboxNetworkPath } from "../core/paths.js";
import { stopGuard } from "../gates/network/guard-process.js";
import { removeHostKey } from "../provision/ssh-files.js";
import { renameSandboxFilter } from "../seccomp/sandbox-filter.js";
import { isRunning } from "./start-stop.js";
import { trySandboxLock } from "../state/sandbox-lock.js";
import { listMetadata, readMetadata, removeMetadata, writeMetadata } from "../state/metadata-store.js";
import { rootKeyOf, type SandboxMetadata } from "../state/metadata.js";
import { hostSlots, passSlot, slotOwner } from "../state/slots.js";
import { poolKey } from "./pool-key.js";

/** A new sandbox's metadata before it has a slot: its own, or a pool member's. */
export type SandboxDraft = Omit<SandboxMetadata, "slot" | "containerName">;

/**
 * Takes a ready member of the template's warm pool for the sandbox `draft` describes, or
 * undefined when none is there (the caller then starts one cold). A member is taken under its
 * own lock, not waited for (one being made, removed or taken by another up is passed over), and
 * only when it is its template's as configured now (poolKey), on the draft's runtime, and running.
 * The member becomes the sandbox: its slot claim passes to the sandbox's name, its metadata is
 * replaced by the draft's with the member's container (pid, cgroup, root: rootKey), its host
 * files named after it (seccomp program, nspawn's log) take the sandbox's name, and what it had
 * of its own (its event log, its empty network records) goes. The caller holds the new name's lock.
 */
export async function takeMember(
  context: RuntimeContext,
  draft: SandboxDraft,
  template: TemplateModel,
): Promise<SandboxMetadata | undefined> {
  if (template.pool.size === 0) return undefined;
  const key = poolKey(context, template);
  const candidates = (await listMetadata(context.paths)).filter(
    (member) => member.pool?.key === key && member.phase === "ready" && member.runtime === draft.runtime,
  );
  for (const candidate of candidates) {
    const taken = await trySandboxLock(context, candidate.name, async () => {
      // Read again under its lock: another up may have taken it meanwhile.
      const member = await readMetadata(context.paths, candidate.name);
      if (member?.pool?.key !== key || member.phase !== "ready" || !(await isRunning(context, member)))
        return undefined;
      return becomeSandbox(context, member, draft);
    });
    if (taken !== undefined) return taken;
  }
  return undefined;
}

async function becomeSandbox(
  context: RuntimeContext,
  member: SandboxMetadata,
  draft: SandboxDraft,
): Promise<SandboxMetadata | undefined> {
  const sandbox: SandboxMetadata = {
    ...draft,
    slot: member.slot,
    containerName: member.containerName,
    pid: member.pid,
    startedAt: member.startedAt,
    cgroup: member.cgroup,
    system: member.system,
    guard: null,
    rootKey: rootKeyOf(member),
  };
  const passed = await passSlot(
    hostSlots,
    member.slot,
    slotOwner(context, member.name),
    slotOwner(context, draft.name),
    () => writeMetadata(context.paths, sandbox),
  );
  if (!passed) return undefined;
  const log = (name: string): string => metadataPath(context.paths, name).replace(/\.json$/, ".log");
  // Side by side: each is a file or two, and all are on up's critical path.
  await Promise.all([
    removeMetadata(context.paths, member.name),
    // A member has no guard of its own (nothing resolves in it); one from an older member goes here.
    stopGuard(context.paths, member.guard, member.name),
    // The bound copies inside stay as they are: renaming a file keeps its inode, and nspawn's open log.
    renameSandboxFilter(context.paths, member.name, draft.name),
    rename(log(member.name), log(draft.name)).catch(() => undefined),
    rm(sandboxNetworkPath(context.paths, member.name), { recursive: true, force: true }),
    rm(eventsPath(context.paths, member.name), { force: true }),
    removeHostKey(context.paths, member.name),
  ]);
  return sandbox;
}

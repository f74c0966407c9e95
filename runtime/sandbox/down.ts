import { rm } from "node:fs/promises";
import { sandboxNetworkPath } from "../core/paths.js";
import { sandboxContextPath } from "../context/context-files.js";
import { removeMetadata } from "../state/metadata-store.js";
import { removeLearnedNames } from "../gates/network/learned-names.js";
import { hostSlots, releaseSlot, slotOwner } from "../state/slots.js";
import { readMetadata } from "../state/metadata-store.js";
import { recordEvent } from "../core/audit-log.js";
import type { RuntimeContext } from "../core/context.js";
import { SandboxError } from "../core/errors.js";
import { assertSandboxName } from "../core/names.js";
import { withSandboxLock } from "../state/sandbox-lock.js";
import { removeSecrets } from "../provision/secrets.js";
import { removeHostKey } from "../provision/ssh-files.js";
import { removePushGate } from "../gates/push-gate/start-push-gate.js";
import { sshAgentHostDir } from "../gates/ssh-agent/sandbox-ssh-agent.js";
import { stopSandbox } from "./start-stop.js";
import { backendOf } from "../backends/registry.js";
import { repoOwnerOf } from "../workspaces/repo-owner.js";
import { removeSnapshots } from "../workspaces/snapshots.js";
import { removeWorkspaces } from "../workspaces/remove-workspaces.js";
import { refuseServerSandboxAlone, serverSandboxesOf } from "./mcp-server-sandboxes.js";

/**
 * removeSandbox as the sandbox's only lifecycle change (see withSandboxLock): `forage-ctl down`.
 * A stdio MCP server's sandbox goes with the sandbox it serves, not on its own while that one is there.
 */
export function destroySandbox(context: RuntimeContext, name: string, graceSeconds = 10): Promise<void> {
  assertSandboxName(name);
  return withSandboxLock(context, name, async () => {
    await refuseServerSandboxAlone(context, await readMetadata(context.paths, name), "down");
    return removeSandbox(context, name, graceSeconds);
  });
}

/**
 * Removes a sandbox completely: container, root, network, secrets, metadata. Every step runs
 * even when an earlier one fails (a half-created sandbox must still go away); the failures are
 * reported together at the end. Direct workspaces are never touched. The caller holds the
 * sandbox's lock.
 */
export async function removeSandbox(context: RuntimeContext, name: string, graceSeconds = 10): Promise<void> {
  const metadata = await readMetadata(context.paths, name);
  if (metadata === undefined)
    throw new SandboxError(`sandbox "${name}" does not exist (see forage-ctl ps)`, "not-found");
  const failures: string[] = [];
  const attempt = async (step: string, action: () => Promise<unknown>): Promise<void> => {
    try {
      await action();
    } catch (error) {
      failures.push(`${step}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  // Its stdio MCP servers' sandboxes first: nothing is left serving a sandbox that is gone.
  await attempt("MCP servers' sandboxes", async () => {
    for (const server of await serverSandboxesOf(context, metadata))
      await withSandboxLock(context, server.name, () => removeSandbox(context, server.name, graceSeconds));
  });
  await attempt("stop", () => stopSandbox(context, metadata, graceSeconds));
  await attempt("container definition", () => backendOf(metadata.runtime).destroy(context, metadata));
  await attempt("workspaces", async () => {
    const owner = await repoOwnerOf(context, metadata);
    await removeSnapshots(metadata, owner);
    const { notes, failures: broken } = await removeWorkspaces(context.paths, metadata, owner);
    notes.forEach((note) => context.warn(note));
    if (broken.length > 0) throw new Error(broken.join("; "));
  });
  await attempt("secrets", () => removeSecrets(context.paths, name));
  await attempt("network records", () => rm(sandboxNetworkPath(context.paths, name), { recursive: true, force: true }));
  await attempt("learned names", () => removeLearnedNames(context.paths, name));
  await attempt("agent context", () => rm(sandboxContextPath(context, name), { recursive: true, force: true }));
  await attempt("ssh host key", () => removeHostKey(context.paths, name));
  // The daemon closes the servers once the sandbox no longer runs; their directories go here.
  await attempt("push gate", () => removePushGate(context.paths, name, metadata));
  await attempt("ssh agent", () => rm(sshAgentHostDir(context, name), { recursive: true, force: true }));
  await attempt("audit", () => recordEvent(context.paths, name, "destroy"));
  await attempt("metadata", () => removeMetadata(context.paths, name));
  // Last, and only once its namespace and link are gone: a claim kept for a leftover namespace
  // lets this state directory's gc find and remove it (gc takes only what it claimed).
  await attempt("slot", async () => {
    if (!(await hostSlots.inUseOnHost(metadata.slot)))
      await releaseSlot(hostSlots, metadata.slot, slotOwner(context, name));
  });
  if (failures.length > 0)
    throw new SandboxError(`sandbox "${name}" removed with errors:\n  ${failures.join("\n  ")}`, "container");
}

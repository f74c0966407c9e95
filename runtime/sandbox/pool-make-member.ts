import { randomBytes } from "node:crypto";
import type { TemplateModel } from "../../generator/model/model.js";
import type { Backend } from "../backends/backend.js";
import { backendNamed, defaultBackend } from "../backends/registry.js";
import { recordEvent } from "../core/audit-log.js";
import type { RuntimeContext } from "../core/context.js";
import { ensureHostKey } from "../provision/ssh-files.js";
import { removeSandbox } from "./down.js";
import { agentOwner, reserveSlot } from "./up.js";
import { writeMetadata } from "../state/metadata-store.js";
import type { SandboxMetadata } from "../state/metadata.js";
import { withSandboxLock } from "../state/sandbox-lock.js";
import { poolKey } from "./pool-key.js";

/**
 * The runtime a template's members start on (its `runtime`, else the host's choice, as `up`
 * picks), or why it keeps no pool: a runtime that cannot take binds into a running sandbox.
 */
export async function memberBackend(
  context: RuntimeContext,
  template: TemplateModel,
): Promise<{ backend: Backend } | { reason: string }> {
  const backend =
    template.runtime === null ? await defaultBackend(context.paths, template.name) : backendNamed(template.runtime);
  if (backend === undefined) return { reason: `runtime "${template.runtime ?? ""}" is not available on this host` };
  if (backend.adopt === undefined)
    return {
      reason: `its sandboxes run on "${backend.name}", which cannot take a workspace into a running sandbox (a pool needs the host root: set runtime: nspawn on the template)`,
    };
  return { backend };
}

/**
 * Starts one member of the template's warm pool: a sandbox named `pool-<8 hex>` with its own
 * slot, link, host table, cgroup, ephemeral root and running container, and nothing of anyone's:
 * no workspace or mount (its workspace field names no folder: "/" unmanaged, never touched), no
 * secret, identity, SSH key, agent or push gate, no session, and a network policy of mode "none"
 * (no guard: nothing resolves). `up` claims it (takeMember). A failure leaves nothing.
 */
export async function makeMember(context: RuntimeContext, template: TemplateModel): Promise<SandboxMetadata> {
  const found = await memberBackend(context, template);
  if ("reason" in found) throw new Error(`template ${template.name} keeps no pool: ${found.reason}`);
  const { backend } = found;
  const name = `pool-${randomBytes(4).toString("hex")}`;
  return withSandboxLock(context, name, async () => {
    await backend.preflight(context, template);
    const owner = await agentOwner(context);
    const reserved = await reserveSlot(context, {
      version: 1,
      name,
      template: template.name,
      runtime: backend.name,
      createdAt: new Date().toISOString(),
      phase: "creating",
      creatorPid: process.pid,
      workspace: { mode: "direct", hostPath: "/", managed: false },
      mounts: [],
      agentIdentity: {},
      uid: owner.uid,
      gid: owner.gid,
      pid: null,
      startedAt: null,
      system: null,
      cgroup: null,
      muxConfig: null,
      authorizedKeys: [],
      secrets: [],
      network: { mode: "none", allow: [], deny: [], sni: false },
      guard: null,
      sshAgent: null,
      pushGate: null,
      pool: { key: poolKey(context, template) },
    });
    try {
      // sshd's files are laid out with the root: the member's key, replaced by the claiming sandbox's.
      if (template.ssh) await ensureHostKey(context.paths, name);
      const started = await backend.start(context, reserved, template);
      const ready = { ...started, phase: "ready" as const };
      await writeMetadata(context.paths, ready);
      await recordEvent(context.paths, name, "create", { detail: `pool member of template ${template.name}` });
      return ready;
    } catch (error) {
      await removeSandbox(context, name, 1).catch(() => undefined);
      throw error;
    }
  });
}

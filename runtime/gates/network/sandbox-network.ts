import { chmod, chown, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCommand } from "../../core/run-command.js";
import type { TemplateModel } from "../../../generator/model/model.js";
import { sandboxNetworkPath } from "../../core/paths.js";
import { recordEvent } from "../../core/audit-log.js";
import { findTemplate, type RuntimeContext } from "../../core/context.js";
import { writeMetadata } from "../../state/metadata-store.js";
import type { SandboxMetadata } from "../../state/metadata.js";
import { enableForwarding } from "./forwarding.js";
import { reloadGuard, startGuard, stopGuard } from "./guard-process.js";
import { templateProxyPort } from "../../../generator/policy/network/proxy-port.js";
import { applyHostPolicy, removeHostPolicy } from "./host-policy.js";
import { applyInSandboxTable } from "./in-sandbox-table.js";
import { routesOut, type GuardServices } from "../../../generator/policy/network/host-table.js";
import { templatePolicy } from "../../../generator/policy/network/policy-rules.js";
import type { NetworkPolicy } from "../../../generator/policy/network/policy-schema.js";
import { sandboxLink, type SandboxLink } from "./sandbox-link.js";

/** The sandbox's resolv.conf (its DNS filter), bound over /etc/resolv.conf in NixOS roots. */
export const resolvConfName = "resolv.conf";

export function linkOf(context: RuntimeContext, metadata: SandboxMetadata): SandboxLink {
  return sandboxLink(metadata.slot, context.settings.host.network.base);
}

/**
 * Before the container starts: records the policy in force (the template's on first start), and
 * loads the host-side table without the DNS filter yet, so the sandbox is never up unfenced.
 */
export async function prepareNetwork(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  template: TemplateModel,
): Promise<SandboxMetadata> {
  await writeNetworkRecords(context, metadata);
  return loadNetworkPolicy(context, metadata, template);
}

/** prepareNetwork's policy half: the policy recorded (the template's when none is) and the host-side table loaded without the DNS filter yet. */
export async function loadNetworkPolicy(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  template: TemplateModel,
): Promise<SandboxMetadata> {
  const prepared = { ...metadata, network: metadata.network ?? templatePolicy(template) };
  await writeMetadata(context.paths, prepared);
  await loadPolicy(context, prepared, prepared.network, null);
  return prepared;
}

/** prepareNetwork's records half: the directory of the sandbox's denials and its resolv.conf, which are bound into it. */
export async function writeNetworkRecords(context: RuntimeContext, metadata: SandboxMetadata): Promise<void> {
  const directory = sandboxNetworkPath(context.paths, metadata.name);
  // Root's, readable by the agent's group only (what it was refused is its business, not other
  // users'); setgid, so the guard's records get that group too.
  await mkdir(directory, { recursive: true });
  await chown(directory, 0, metadata.gid);
  await chmod(directory, 0o2750);
  const resolvConf = join(directory, resolvConfName);
  await writeFile(resolvConf, `nameserver ${linkOf(context, metadata).hostAddress}\n`);
  await chmod(resolvConf, 0o644); // bound over /etc/resolv.conf, which every user inside reads
}

/** Once the link's host end exists: starts the guard (DNS filter, denials) and loads the full table. */
export async function startNetworkGuard(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  namespace: string | undefined,
): Promise<SandboxMetadata> {
  const guard = await startGuard(context, metadata, namespace);
  try {
    await loadPolicy(context, metadata, policyOf(metadata), guard);
  } catch (error) {
    await stopGuard(context.paths, guard, metadata.name);
    throw error;
  }
  return { ...metadata, guard };
}

/**
 * Stops the guard, removes the table (the link is the runtime's to remove) and forgets the
 * sandbox's connections: the next sandbox in its slot has its addresses, and must not inherit
 * the host's record of an old one's flows (an established one, or a TIME_WAIT that would hold up
 * its checkpoint for two minutes).
 */
export async function stopNetwork(context: RuntimeContext, metadata: SandboxMetadata): Promise<void> {
  await stopGuard(context.paths, metadata.guard, metadata.name);
  const link = linkOf(context, metadata);
  // Together: every caller has stopped the container and removed its link first, so no packet
  // of the sandbox's can make an entry while its table goes.
  await Promise.all([removeHostPolicy(link), forgetConnections(link, ["-s", "-d"])]);
}

/**
 * Puts a new policy in force on a running sandbox: the table is replaced atomically, then the
 * guard re-reads the policy (and re-admits the addresses of names still allowed). Saved in the
 * metadata first, so a restart of the sandbox or the daemon keeps it.
 */
export async function changeNetwork(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  policy: NetworkPolicy,
  running: boolean,
  namespace: string | undefined,
): Promise<SandboxMetadata> {
  const changed = { ...metadata, network: policy };
  await writeMetadata(context.paths, changed);
  if (running) {
    await loadPolicy(context, changed, policy, metadata.guard);
    await syncInSandboxTable(context, changed, namespace);
    // Both tables are new (their allowed sets empty): the guard refills them with what the new
    // policy still allows. Until it has, a cached answer may find its address refused.
    if (!(await reloadGuard(context.paths, metadata.guard, metadata.name)))
      context.warn(
        `sandbox ${metadata.name}: its network guard did not take the change (forage-ctl network ${metadata.name} shows its health)`,
      );
    await cutConnections(context, linkOf(context, changed));
  }
  await recordEvent(context.paths, metadata.name, "network", { detail: describePolicy(policy) });
  return changed;
}

/**
 * Puts the in-sandbox table of the mode in force into the running sandbox's namespace (after a
 * NixOS system loaded its template's at boot, and on every change). Defence in depth: a failure
 * is a warning, the host-side table still holds.
 */
export async function syncInSandboxTable(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  namespace: string | undefined,
): Promise<void> {
  const template = findTemplate(context, metadata.template);
  try {
    if (namespace === undefined) throw new Error("the sandbox is not running");
    await applyInSandboxTable(namespace, context.settings, template, policyOf(metadata, template));
  } catch (error) {
    context.warn(`sandbox ${metadata.name}: ${(error as Error).message} (the host-side policy still holds)`);
  }
}

/**
 * Makes the new policy apply to connections already open: their conntrack entries go, so their
 * next packet is judged again by the new table (allowed ones carry on, refused ones are reset).
 */
async function cutConnections(context: RuntimeContext, link: SandboxLink): Promise<void> {
  if (!(await forgetConnections(link, ["-s"])))
    context.warn("conntrack is not installed: connections opened before this change keep running until they close");
}

/**
 * Deletes the host's conntrack entries of the sandbox's addresses, as source and/or destination
 * (`directions`), both families. False when conntrack is not installed. The deletions run at
 * once: each `conntrack -D` walks the host's whole table (~20 ms here), and they are independent.
 */
async function forgetConnections(link: SandboxLink, directions: readonly ("-s" | "-d")[]): Promise<boolean> {
  const selectors = directions.flatMap((direction) => [
    [direction, link.sandboxAddress],
    ["-f", "ipv6", direction, link.sandboxAddress6],
  ]);
  // Not rejected: exit status 1 only says there was nothing to delete.
  const cuts = await Promise.all(
    selectors.map((selector) => runCommand("conntrack", ["-D", ...selector], { reject: false })),
  );
  return cuts.every((cut) => cut.spawnError === undefined);
}

/** "restricted, allow a.example,*.b.example:443, deny c.example, sni". */
export function describePolicy(policy: NetworkPolicy): string {
  const parts: string[] = [policy.learn === true ? "full (learn)" : policy.mode];
  if (policy.mode === "restricted")
    parts.push(`allow ${policy.allow.length === 0 ? "nothing" : policy.allow.join(",")}`);
  if (policy.deny.length > 0) parts.push(`deny ${policy.deny.join(",")}`);
  if (policy.sni) parts.push("sni");
  return parts.join(", ");
}

/** The policy in force: the recorded one, or (metadata from before policies were recorded) the template's. */
export function policyOf(metadata: SandboxMetadata, template?: TemplateModel): NetworkPolicy {
  if (metadata.network !== null) return metadata.network;
  if (template === undefined) throw new Error(`internal: sandbox ${metadata.name} has no recorded network policy`);
  return templatePolicy(template);
}

async function loadPolicy(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  policy: NetworkPolicy,
  guard: GuardServices | null,
): Promise<void> {
  if (routesOut(policy.mode)) {
    const changed = await enableForwarding();
    if (changed.length > 0) context.warn(`enabled forwarding for sandbox networks: ${changed.join(", ")}`);
  }
  const template = context.settings.templates.find((candidate) => candidate.name === metadata.template);
  const proxyPort = template === undefined ? null : templateProxyPort(context.settings, template);
  await applyHostPolicy(linkOf(context, metadata), policy, guard, context.settings.host.externalInterface, proxyPort);
}

import { join } from "node:path";
import { sandboxNetworkPath } from "../core/paths.js";
import { findTemplate, type RuntimeContext } from "../core/context.js";
import { requireSandbox } from "../state/require-sandbox.js";
import { SandboxError } from "../core/errors.js";
import { isRunning } from "./start-stop.js";
import { withSandboxLock } from "../state/sandbox-lock.js";
import { backendOf } from "../backends/registry.js";
import { readDenials, type DenialRecord } from "../gates/network/denials.js";
import { guardStatusFile, guardStatusSchema, type GuardStatus } from "../gates/network/guard-status.js";
import { readStatusFile } from "../core/status-file.js";
import { isOurGuard, recordDenials } from "../gates/network/guard-process.js";
import { templatePolicy } from "../../generator/policy/network/policy-rules.js";
import { networkPolicySchema, type NetworkPolicy } from "../../generator/policy/network/policy-schema.js";
import { changeNetwork, policyOf } from "../gates/network/sandbox-network.js";
import { refreshContextFiles } from "../context/context-files.js";
import { maxLearnedNames, readLearnedNames, type LearnedName } from "../gates/network/learned-names.js";
import { issueList } from "../../generator/lib/issue-list.js";
import type { NetworkChange } from "./network-change.js";

/** A name the sandbox's DNS filter or name gate refused, from its denial records. */
export interface DeniedName {
  name: string;
  kind: "dns" | "sni";
  /** The rule of the latest refusal, e.g. "not in allow". */
  rule: string;
  count: number;
  last: string;
}

/** A sandbox's network as `forage-ctl network NAME` shows it. */
export interface NetworkView {
  name: string;
  /** The template the sandbox was made from (whose allow list `--suggest` extends). */
  template: string;
  policy: NetworkPolicy;
  /** The template's policy, for comparison. */
  templatePolicy: NetworkPolicy;
  running: boolean;
  /** The guard's own report, or null when it is not running (then no name resolves). */
  guard: GuardStatus | null;
  /** Names refused (DNS filter, name gate), most recent first. */
  deniedNames: DeniedName[];
  /** Names resolved in learn mode, in the order first seen (kept after learn mode ends, until `down`). */
  learned: LearnedName[];
  /** At most this many names are learned; past it, new names are not recorded. */
  learnedLimit: number;
}

/** Shows, or changes and shows, a sandbox's network policy (live when it runs). */
export async function networkOperation(
  context: RuntimeContext,
  name: string,
  change: NetworkChange | null,
): Promise<NetworkView> {
  if (change !== null) {
    await withSandboxLock(context, name, async () => {
      const metadata = await requireSandbox(context, name);
      const template = findTemplate(context, metadata.template);
      const base = change.reset === true ? templatePolicy(template) : policyOf(metadata, template);
      const mode = change.learn === true ? "full" : (change.mode ?? base.mode);
      // Learning goes on until a mode is asked for (or --reset): --allow and --deny keep it.
      const learn = change.learn === true || (change.mode === undefined && base.learn === true);
      const policy: NetworkPolicy = {
        mode,
        allow: union(base.allow, change.allow),
        deny: union(base.deny, change.deny),
        sni: restrictedOnly(name, "sni", mode, change.sni ?? base.sni, change.sni),
        // Each written only when on, as templatePolicy does.
        ...(restrictedOnly(name, "ask", mode, change.ask ?? base.ask === true, change.ask) ? { ask: true } : {}),
        ...(learn ? { learn: true as const } : {}),
      };
      const checked = networkPolicySchema.safeParse(policy);
      if (!checked.success) throw new SandboxError(`network ${name}: ${issueList(checked.error.issues)}`, "usage");
      const running = await isRunning(context, metadata);
      const namespace = running ? await backendOf(metadata.runtime).networkNamespace(context, metadata) : undefined;
      const changed = await changeNetwork(context, metadata, checked.data, running, namespace);
      // What the agent was told it may reach changes with it (a stopped one's is rendered at its start).
      if (running) await refreshContextFiles(context, changed, template);
    });
  }
  const metadata = await requireSandbox(context, name);
  const template = findTemplate(context, metadata.template);
  const running = await isRunning(context, metadata);
  const policy = policyOf(metadata, template);
  const ours = running && (await isOurGuard(context.paths, metadata.guard, name));
  // Up to this moment: the guard writes what it learned once a second otherwise.
  if (ours && policy.learn === true) await recordDenials(context.paths, metadata.guard, name);
  return {
    name,
    template: metadata.template,
    policy,
    templatePolicy: templatePolicy(template),
    running,
    guard: ours ? await guardStatus(context, name) : null,
    deniedNames: deniedNames(await readDenials(sandboxNetworkPath(context.paths, name))),
    learned: await readLearnedNames(context.paths, name),
    learnedLimit: maxLearnedNames,
  };
}

/** The names among the denial records, one entry each (its latest rule), most recent first. */
function deniedNames(records: DenialRecord[]): DeniedName[] {
  const byName = new Map<string, DeniedName>();
  for (const record of records) {
    if (record.name === undefined || (record.kind !== "dns" && record.kind !== "sni")) continue;
    const known = byName.get(record.name);
    byName.delete(record.name); // re-inserted last: the map ends in order of latest refusal
    byName.set(record.name, {
      name: record.name,
      kind: record.kind,
      rule: record.rule,
      count: (known?.count ?? 0) + record.count,
      last: record.time,
    });
  }
  return [...byName.values()].reverse();
}

/** What the sandbox's network refused, oldest first. */
export async function denialsOperation(context: RuntimeContext, name: string): Promise<DenialRecord[]> {
  const metadata = await requireSandbox(context, name);
  // Up to this moment: a quiet sandbox's tables are read only every few seconds otherwise.
  await recordDenials(context.paths, metadata.guard, name);
  return readDenials(sandboxNetworkPath(context.paths, name));
}

async function guardStatus(context: RuntimeContext, name: string): Promise<GuardStatus | null> {
  return (
    (await readStatusFile(join(sandboxNetworkPath(context.paths, name), guardStatusFile), guardStatusSchema)) ?? null
  );
}

/** What each restricted-only flag does with the allowlist, for the refusal. */
const flagUses = {
  sni: "it checks names against the allowlist",
  ask: "it asks about names not in the allowlist",
} as const;

/**
 * sni and ask work with the allowlist, so only restricted mode reads them (as in templates, whose
 * schema refuses them beside none and full): asked for in another mode they are refused, and a
 * sandbox that leaves restricted drops them rather than keep a flag nothing reads.
 */
function restrictedOnly(
  name: string,
  flag: keyof typeof flagUses,
  mode: NetworkPolicy["mode"],
  value: boolean,
  asked: boolean | undefined,
): boolean {
  if (mode === "restricted") return value;
  if (asked === true) {
    throw new SandboxError(
      `network ${name}: --${flag} only applies to mode "restricted" (${flagUses[flag]}), and this sandbox's mode would be "${mode}": switch it to restricted as well (forage-ctl network ${name} restricted --${flag}), or leave out --${flag}`,
      "usage",
    );
  }
  return false;
}

function union(current: string[], added: string[] | undefined): string[] {
  return [...new Set([...current, ...(added ?? [])])];
}

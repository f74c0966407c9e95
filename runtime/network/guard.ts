import { access, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sandboxNetworkPath } from "../core/paths.js";
import type { Socket } from "node:net";
import { readMetadata } from "../state/metadata-store.js";
import { AllowedAddresses } from "./allowed-addresses.js";
import { SetElementWriter } from "./set-element-writer.js";
import { DenialPoller, type DescribeRefusal } from "./denial-poller.js";
import { DenialLog, RefusalTally } from "./denials.js";
import { chainVerdict } from "../../generator/policy/network/chain-verdict.js";
import { filterDnsMessage, type DnsFilterDeps } from "./dns/dns-filter.js";
import type { DnsHandler, DnsListener } from "./dns/dns-listener.js";
import { parseUpstream, systemResolver, type UpstreamResolver } from "./dns/upstream.js";
import { hostPolicyTableRef } from "../../generator/policy/network/host-table.js";
import type { GuardSpec } from "./guard-spec.js";
import { sandboxRanges, type SandboxLink } from "../../generator/policy/network/sandbox-link.js";
import type { GateListener } from "./sni/gate-listener.js";
import { createNameGate } from "./sni/name-gate.js";
import { SpecialAddresses } from "./special-addresses.js";
import { inSandboxTableRef } from "../../generator/policy/network/in-sandbox-table.js";
import { policyRules, type PolicyRules } from "../../generator/policy/network/policy-rules.js";
import { refusalReason } from "../../generator/policy/network/refusal-reason.js";
import { guardStatusFile, type GuardStatus } from "./guard-status.js";

const pollMs = 1000;
/** DNS queries the filter works on at once, per sandbox; more are dropped (clients retry). */
const maxQueriesInFlight = 256;

/** The sockets guard-main opened (before loading this module), and the handlers it gives them. */
export interface GuardListeners {
  dns: DnsListener;
  gate: GateListener;
  /** Stops counting SIGHUPs that came while this module loaded, and says how many came. */
  takeEarlyHangups: () => number;
}

export interface GuardHandlers {
  dns: DnsHandler;
  gate: (socket: Socket, originalPort: number) => void;
}

/**
 * The sandbox's network guard, a small host process beside the container: its DNS filter and
 * name gate on the host end of the link (filling the allowed sets), and the recorder of what the
 * tables refused. guard-main opens the sockets first; this hands it the handlers (`serve`), then
 * polls until the link's host end is gone. SIGHUP re-reads the policy from the metadata
 * (`forage-ctl network` replaced the tables first); SIGTERM stops it.
 */
export async function runGuard(spec: GuardSpec, link: SandboxLink, listeners: GuardListeners, serve: (handlers: GuardHandlers) => void): Promise<void> {
  let policy = await readPolicy(spec);
  const upstream: UpstreamResolver = spec.upstream === null ? await systemResolver() : parseUpstream(spec.upstream);
  const table = hostPolicyTableRef(link);
  const mirror = spec.namespace === null ? null : { table: inSandboxTableRef, writer: new SetElementWriter(spec.namespace) };
  const allowed = new AllowedAddresses({ table, writer: new SetElementWriter(null) }, mirror);
  const directory = sandboxNetworkPath(spec.paths, spec.sandbox);
  const log = new DenialLog(directory);
  const tally = new RefusalTally();
  const special = new SpecialAddresses(sandboxRanges(spec.base), spec.admitPrivate);
  const counts = { queries: 0, refusedNames: 0, upstreamFailures: 0, refusedPackets: 0, reloads: 0 };
  let inFlight = 0;
  const dnsDeps: DnsFilterDeps = {
    policy: () => policy,
    upstream,
    admit: (addresses) => allowed.admit(addresses),
    refused: (refusal) => {
      counts.refusedNames++;
      tally.add({ kind: "dns", name: refusal.name, rule: refusal.rule });
    },
    refuseAddress: (address) => special.refusal(address),
    upstreamFailed: () => {
      counts.upstreamFailures++;
    },
  };
  const gate = createNameGate({
    policy: () => policy,
    upstream,
    refused: (refusal) => {
      counts.refusedNames++;
      tally.add({ kind: "sni", ...(refusal.name === undefined ? {} : { name: refusal.name }), port: refusal.port, rule: refusal.rule });
    },
    special,
  });
  const { dns } = listeners;
  serve({
    dns: async (message, transport) => {
      counts.queries++;
      // A sandbox flooding its resolver gets silence, not an ever longer queue on the host.
      if (inFlight >= maxQueriesInFlight) return null;
      inFlight++;
      // The set-element writers start while upstream answers, not after (the first admission waits for them).
      if (policy.mode === "restricted") allowed.warm();
      return filterDnsMessage(dnsDeps, message, transport).finally(() => inFlight--);
    },
    gate: (socket, port) => gate.handle(socket, port),
  });
  const startedAt = new Date().toISOString();
  const sources = [{ table, namespace: null }, ...(spec.namespace === null ? [] : [{ table: inSandboxTableRef, namespace: spec.namespace }])];
  const poller = new DenialPoller(
    sources,
    describeRefusal(link, () => policy, allowed),
  );
  const writeStatus = (): Promise<void> => {
    const status: GuardStatus = { pid: process.pid, dnsPort: dns.port, startedAt, mode: policy.mode, upstream: `${upstream.address}:${upstream.port}`, ...counts };
    return writeFile(join(directory, guardStatusFile), `${JSON.stringify(status)}\n`, { mode: 0o640 });
  };
  await writeStatus().catch(() => undefined);

  const stop = (): void => {
    listeners.gate.close();
    void dns.close().finally(() => process.exit(0));
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  const reload = (): void => {
    void readPolicy(spec)
      .then(async (next) => {
        policy = next;
        gate.recheck();
        await allowed.readmit(next.mode === "restricted", (name, chain) => {
          const verdict = chainVerdict(next, [name, ...chain]);
          return verdict.allowed && next.mode === "restricted" ? verdict.ports : false;
        });
        counts.reloads++; // only a reload that took: forage-ctl warns when this does not grow
        await writeStatus();
      })
      .catch((error: Error) => process.stderr.write(`forage guard ${spec.sandbox}: reload failed: ${error.message}\n`));
  };
  process.on("SIGHUP", reload);
  // A change made while this module loaded: its policy was read above, but forage-ctl waits for the count.
  if (listeners.takeEarlyHangups() > 0) reload();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    // The link's host end goes with the container (nspawn: with the namespace; NixOS: with its unit).
    if (!(await exists(`/sys/class/net/${link.hostInterface}`))) break;
    const records = await poller.poll().catch(() => []);
    counts.refusedPackets += records.reduce((sum, record) => sum + record.count, 0);
    await log.append([...tally.take(), ...records]);
    allowed.prune();
    await writeStatus().catch(() => undefined);
  }
  listeners.gate.close();
  await dns.close();
}

/** The policy in the sandbox's metadata, its entries parsed once here (not on every question). */
async function readPolicy(spec: GuardSpec): Promise<PolicyRules> {
  const metadata = await readMetadata(spec.paths, spec.sandbox);
  if (metadata?.network === null || metadata?.network === undefined) throw new Error(`sandbox ${spec.sandbox} has no network policy in its metadata`);
  return policyRules(metadata.network);
}

/** Names the rule that refused a destination, from the policy and what the DNS filter admitted. */
function describeRefusal(link: SandboxLink, policy: () => PolicyRules, allowed: AllowedAddresses): DescribeRefusal {
  return (destination) => {
    const name = allowed.lookup(destination.address)?.name;
    return { rule: refusalReason(policy(), link, destination, name), ...(name === undefined ? {} : { name }) };
  };
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

import { appendFile } from "node:fs/promises";
import { join } from "node:path";
import type { Socket } from "node:net";
import { chainVerdict } from "../../../generator/policy/network/chain-verdict.js";
import { hostPolicyTableRef, type GuardServices } from "../../../generator/policy/network/host-table.js";
import { inSandboxTableRef } from "../../../generator/policy/network/in-sandbox-table.js";
import { policyRules, type PolicyRules } from "../../../generator/policy/network/policy-rules.js";
import { refusalReason } from "../../../generator/policy/network/refusal-reason.js";
import { sandboxLink, sandboxRanges, type SandboxLink } from "../../../generator/policy/network/sandbox-link.js";
import { sandboxNetworkPath } from "../../core/paths.js";
import { readMetadata } from "../../state/metadata-store.js";
import { AllowedAddresses } from "./allowed-addresses.js";
import { DenialPoller, type DescribeRefusal } from "./denial-poller.js";
import { DenialLog, RefusalTally } from "./denials.js";
import { filterDnsMessage, maxTtl, type DnsFilterDeps } from "./dns/dns-filter.js";
import { AnswerCache } from "./dns/answer-cache.js";
import { listenDns, type DnsListener } from "./dns/dns-listener.js";
import { parseUpstream, systemResolver, type UpstreamResolver } from "./dns/upstream.js";
import { guardLogName, guardStatusFile, type GuardStatus } from "./guard-status.js";
import { writeStatusFile } from "../../core/status-file.js";
import type { GuardSpec } from "./guard-spec.js";
import { SetElementWriter } from "./set-element-writer.js";
import { listenGate, type GateListener } from "./sni/gate-listener.js";
import { createNameGate, type NameGate } from "./sni/name-gate.js";
import { SpecialAddresses } from "../shared/special-addresses.js";
import { PortForwarder, type ForwardState } from "./port-forwarder.js";
import { pathExists } from "../../core/path-exists.js";
import type { AskApproval } from "../approvals/approval.js";
import { NameApprovals } from "./name-approvals.js";
import { persistAllowedName } from "./persist-allowed-name.js";
import { takeBackEnded } from "./approval-ends.js";
import { LearnedNames, learnedNamesPath } from "./learned-names.js";

/** DNS queries the filter works on at once, per sandbox; more are dropped (clients retry). */
const maxQueriesInFlight = 256;
/**
 * A quiet sandbox's tables are read for refusals every this many ticks, a busy one's every tick:
 * each reading runs nft for both tables, which adds up with many idle sandboxes on a host. A
 * refusal is recorded at most this many seconds late, unless the sandbox also asks names.
 */
const quietPollTicks = 10;

/** One sandbox's guard inside the guard host (guard-host.ts): what the host asks of it. */
export interface SandboxGuard {
  readonly services: GuardServices;
  /** Re-reads the policy from the metadata (`forage-ctl network` replaced the tables first) and refills the allowed sets. */
  reload(): Promise<void>;
  /** One round of upkeep (denial records, expiries, status); false once the sandbox's link is gone. */
  tick(): Promise<boolean>;
  /** Reads the tables' refusals into the denial records now (`forage-ctl denials` asks first). */
  record(): Promise<void>;
  /** Opens and closes the sandbox's port forwards to match its metadata (`forage-ctl port`); says how each is. */
  forwards(): Promise<ForwardState[]>;
  /** Closes its sockets (port forwards too) and its in-sandbox writer. */
  close(): Promise<void>;
}

/**
 * Opens a sandbox's guard: its DNS filter and name gate on the host end of the sandbox's link
 * (filling the allowed sets through `hostWriter`, the host's shared writer, and the sandbox's own
 * table through a writer of its own), and the recorder of what the tables refused.
 */
export async function openSandboxGuard(
  spec: GuardSpec,
  hostWriter: SetElementWriter,
  upstreamOf: (spec: GuardSpec) => Promise<UpstreamResolver>,
  ask: AskApproval,
): Promise<SandboxGuard> {
  const guard = new Guard(spec, await readPolicy(spec), await upstreamOf(spec), hostWriter, ask);
  await guard.learned.load();
  await guard.listen();
  return guard;
}

/** The state of one sandbox's guard; see SandboxGuard. */
class Guard implements SandboxGuard {
  private readonly link: SandboxLink;
  private readonly mirrorWriter: SetElementWriter | null;
  private readonly allowed: AllowedAddresses;
  private readonly tally = new RefusalTally();
  private readonly counts = { queries: 0, refusedNames: 0, upstreamFailures: 0, refusedPackets: 0, reloads: 0 };
  private readonly gate: NameGate;
  private readonly special: SpecialAddresses;
  private readonly dnsDeps: DnsFilterDeps;
  private readonly poller: DenialPoller;
  private readonly denials: DenialLog;
  private readonly ports: PortForwarder;
  private readonly names: NameApprovals;
  /** The policy the filter and the gate read: the sandbox's own, plus the names admitted when asked. */
  private policy: PolicyRules;
  private readonly startedAt = new Date().toISOString();
  /** Learn mode's record (kept beside the metadata, so a restarted guard carries on from it). */
  readonly learned: LearnedNames;
  private listeners: { dns: DnsListener; gates: GateListener } | undefined;
  /** Questions and connections seen, and how many there were at the last reading of the tables. */
  private activity = 0;
  private recordedAt = -1;
  private quietTicks = 0;
  private inFlight = 0;

  constructor(
    private readonly spec: GuardSpec,
    private ownPolicy: PolicyRules,
    private readonly upstream: UpstreamResolver,
    hostWriter: SetElementWriter,
    ask: AskApproval,
  ) {
    this.names = new NameApprovals({
      sandbox: spec.sandbox,
      ask,
      persist: (entry) => persistAllowedName(spec.paths, spec.sandbox, entry),
      changed: () => this.combinePolicy(),
      log: (line) => void logForSandbox(spec, line),
    });
    this.policy = ownPolicy;
    this.link = sandboxLink(spec.slot, spec.base);
    this.mirrorWriter = spec.namespace === null ? null : new SetElementWriter(spec.namespace);
    const mirror = this.mirrorWriter === null ? null : { table: inSandboxTableRef, writer: this.mirrorWriter };
    this.allowed = new AllowedAddresses({ table: hostPolicyTableRef(this.link), writer: hostWriter }, mirror);
    this.special = new SpecialAddresses(sandboxRanges(spec.base), spec.admitPrivate);
    this.gate = createNameGate({
      policy: () => this.policy,
      upstream,
      refused: (refusal) => this.refusedName({ kind: "sni", ...refusal }),
      special: this.special,
      admittedAt: (name, port) => this.names.admittedAt(name, port),
    });
    this.dnsDeps = {
      policy: () => this.policy,
      upstream,
      admit: (addresses) => this.allowed.admit(addresses),
      refused: (refusal) => this.refusedName({ kind: "dns", ...refusal }),
      refuseAddress: (address) => this.special.refusal(address),
      upstreamFailed: () => void this.counts.upstreamFailures++,
      ask: (name) => this.names.decide(name),
      learned: (name, addresses) => this.learned.add(name, addresses),
      cache: new AnswerCache({ maxTtlSeconds: maxTtl }),
    };
    this.learned = new LearnedNames(learnedNamesPath(spec.paths, spec.sandbox));
    const sources = [
      { table: hostPolicyTableRef(this.link), namespace: null },
      ...(mirror === null ? [] : [{ table: inSandboxTableRef, namespace: spec.namespace }]),
    ];
    this.poller = new DenialPoller(
      sources,
      describeRefusal(this.link, () => this.policy, this.allowed),
    );
    this.denials = new DenialLog(this.directory());
    this.ports = new PortForwarder(this.link.sandboxAddress);
  }

  get services(): GuardServices {
    const { dns, gates } = this.opened();
    return { dnsPort: dns.port, tlsPort: gates.tlsPort, httpPort: gates.httpPort };
  }

  /** Opens the DNS filter's and the name gate's sockets on the link's host end. */
  async listen(): Promise<void> {
    const dns = await listenDns(this.link.hostAddress, (message, transport) => this.question(message, transport));
    const gates = await listenGate(
      { v4: this.link.hostAddress, v6: this.link.hostAddress6 },
      (socket: Socket, port: number) => {
        this.activity++;
        this.gate.handle(socket, port);
      },
    ).catch(async (error: unknown) => {
      await dns.close();
      throw error;
    });
    this.listeners = { dns, gates };
    await this.writeStatus().catch(() => undefined);
    // The forwards kept from before a stop open with the sandbox; one that cannot is logged, not fatal.
    for (const failed of (await this.forwards().catch((error: Error) => [{ error: error.message }])).filter(
      (each) => each.error !== null,
    ))
      await logForSandbox(this.spec, `a port forward did not open: ${JSON.stringify(failed)}`);
  }

  forwards(): Promise<ForwardState[]> {
    return this.ports.sync(async () => (await readMetadata(this.spec.paths, this.spec.sandbox))?.ports ?? []);
  }

  async reload(): Promise<void> {
    this.ownPolicy = await readPolicy(this.spec);
    this.combinePolicy();
    const next = this.policy;
    this.gate.recheck();
    await this.allowed.readmit(next.mode === "restricted", (name, chain, address) => {
      if (next.mode !== "restricted") return false;
      const verdict = chainVerdict(next, [name, ...chain]);
      if (verdict.allowed) return verdict.ports;
      // A name approved when asked keeps what the approval covers: its port, at its addresses.
      const admission = this.names.view().find((each) => each.name === name);
      return admission !== undefined && admission.addresses.some((each) => each.address === address)
        ? [admission.port]
        : false;
    });
    this.counts.reloads++; // only a reload that took
    await this.writeStatus();
  }

  async tick(): Promise<boolean> {
    // The link's host end goes with the container (nspawn: with the namespace; NixOS: with its unit).
    if (!(await pathExists(`/sys/class/net/${this.link.hostInterface}`))) return false;
    const ended = this.names.expire();
    if (ended.length > 0) {
      await takeBackEnded(this.allowed, this.link, ended).catch((error: Error) =>
        logForSandbox(this.spec, `approvals ended, but their addresses could not all be taken back: ${error.message}`),
      );
      this.gate.recheck();
    }
    this.allowed.prune();
    await this.learned.flush();
    if (this.activity !== this.recordedAt || ++this.quietTicks >= quietPollTicks) await this.record();
    return true;
  }

  async record(): Promise<void> {
    this.recordedAt = this.activity;
    this.quietTicks = 0;
    const records = await this.poller.poll().catch(() => []);
    this.counts.refusedPackets += records.reduce((sum, each) => sum + each.count, 0);
    await this.denials.append([...this.tally.take(), ...records]);
    await this.learned.flush();
    await this.writeStatus().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.ports.close();
    this.listeners?.gates.close();
    this.mirrorWriter?.close();
    await this.listeners?.dns.close();
    await this.learned.flush();
  }

  private question(message: Buffer, transport: "udp" | "tcp"): Promise<Buffer | null> {
    this.counts.queries++;
    this.activity++;
    // A sandbox flooding its resolver gets silence, not an ever longer queue on the host.
    if (this.inFlight >= maxQueriesInFlight) return Promise.resolve(null);
    this.inFlight++;
    // The set-element writers start while upstream answers, not after (the first admission waits for them).
    if (this.policy.mode === "restricted") this.allowed.warm();
    return filterDnsMessage(this.dnsDeps, message, transport).finally(() => this.inFlight--);
  }

  private combinePolicy(): void {
    const admitted = this.names.rules();
    this.policy =
      admitted.length === 0 ? this.ownPolicy : { ...this.ownPolicy, allow: [...this.ownPolicy.allow, ...admitted] };
    // `network NAME` and `--suggest` read the admitted names from the status.
    if (this.listeners !== undefined) void this.writeStatus().catch(() => undefined);
  }

  private refusedName(refusal: { kind: "dns" | "sni"; name?: string; port?: number; rule: string }): void {
    this.counts.refusedNames++;
    this.tally.add(refusal);
  }

  private opened(): { dns: DnsListener; gates: GateListener } {
    if (this.listeners === undefined)
      throw new Error(`internal: the guard of ${this.spec.sandbox} does not listen yet`);
    return this.listeners;
  }

  private directory(): string {
    return sandboxNetworkPath(this.spec.paths, this.spec.sandbox);
  }

  private async writeStatus(): Promise<void> {
    const status: GuardStatus = {
      pid: process.pid,
      dnsPort: this.opened().dns.port,
      startedAt: this.startedAt,
      mode: this.policy.mode,
      upstream: `${this.upstream.address}:${this.upstream.port}`,
      ...this.counts,
      admitted: this.names.forThisRun(),
      admissions: this.names.view(),
    };
    // Whole or not at all: `forage-ctl network` reads it at any moment (a file being rewritten in
    // place read as empty, and the guard as gone); writes that overlap each have a temporary of their own.
    await writeStatusFile(join(this.directory(), guardStatusFile), status, 0o640);
  }
}

/** The upstream resolver a spec names, or the host's own (its resolv.conf). */
export function upstreamFor(spec: GuardSpec): Promise<UpstreamResolver> {
  return spec.upstream === null ? systemResolver() : Promise.resolve(parseUpstream(spec.upstream));
}

/** Appends a line to the sandbox's guard log (root's, beside its denial records). */
export async function logForSandbox(spec: GuardSpec, line: string): Promise<void> {
  await appendFile(
    join(sandboxNetworkPath(spec.paths, spec.sandbox), guardLogName),
    `${new Date().toISOString()} ${line}\n`,
    { mode: 0o600 },
  ).catch(() => undefined);
}

/** The policy in the sandbox's metadata, its entries parsed once here (not on every question). */
async function readPolicy(spec: GuardSpec): Promise<PolicyRules> {
  const metadata = await readMetadata(spec.paths, spec.sandbox);
  if (metadata?.network === null || metadata?.network === undefined)
    throw new Error(`sandbox ${spec.sandbox} has no network policy in its metadata`);
  return policyRules(metadata.network);
}

/** Names the rule that refused a destination, from the policy and what the DNS filter admitted. */
function describeRefusal(link: SandboxLink, policy: () => PolicyRules, allowed: AllowedAddresses): DescribeRefusal {
  return (destination) => {
    const name = allowed.lookup(destination.address)?.name;
    return { rule: refusalReason(policy(), link, destination, name), ...(name === undefined ? {} : { name }) };
  };
}

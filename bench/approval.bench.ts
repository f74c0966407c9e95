// Approval latency benchmark: `npm run bench`. What a held DNS answer (network ask mode) adds once
// the human has answered: the time from the decision reaching the sandbox's DNS filter to the
// answer leaving it, against a name the allowlist names (forwarded at once) in the same process.
// The filter is the real one (filterDnsMessage, NameApprovals) against a loopback upstream; the
// question queue is the bench's, answered the moment the question arrives, and admission is not
// written to nftables (network.bench.ts times that: about 1 ms). The rest of what a user waits
// for is `forage-ctl approve` itself and the daemon's hop to the guard: the CLI's process start
// is measured beside it.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import dnsPacket, { type Answer } from "dns-packet";
import { policyRules } from "../generator/policy/network/policy-rules.js";
import type { NetworkPolicy } from "../generator/policy/network/policy-schema.js";
import type { ApprovalDecision } from "../runtime/gates/approvals/approval.js";
import { packageRoot } from "../runtime/core/package-root.js";
import { filterDnsMessage, type DnsFilterDeps } from "../runtime/gates/network/dns/dns-filter.js";
import { NameApprovals } from "../runtime/gates/network/name-approvals.js";
import { SpecialAddresses } from "../runtime/gates/shared/special-addresses.js";
import { decodeAnswer, startZoneUpstream } from "../test/support/zone-upstream.js";
import { medianMs } from "./run.js";

const held = 300;
const heldName = (i: number): string => `h${i}.ask.example.test`;
const zone: Record<string, Answer[]> = {
  "allowed.example.test": [{ type: "A", name: "allowed.example.test", ttl: 60, data: "44.0.113.1" }],
};
for (let i = 0; i < held; i++)
  zone[heldName(i)] = [
    { type: "A", name: heldName(i), ttl: 60, data: `44.0.${114 + Math.floor(i / 250)}.${(i % 250) + 1}` },
  ];

const upstream = await startZoneUpstream(zone);
const special = new SpecialAddresses({ v4: "10.100.0.0", v6: "fd66:a64::" }, []);
const policy: NetworkPolicy = { mode: "restricted", allow: ["allowed.example.test"], deny: [], sni: false, ask: true };
/** The question the filter is waiting on: answered by the bench the moment it comes. */
let waiting: ((decision: ApprovalDecision) => void) | undefined;
let questionCame: (() => void) | undefined;
const approvals = new NameApprovals({
  sandbox: "bench",
  ask: () =>
    new Promise((answer) => {
      waiting = answer;
      questionCame?.();
    }),
  persist: async () => true,
  changed: () => undefined,
  log: () => undefined,
});
const deps: DnsFilterDeps = {
  policy: () => {
    const own = policyRules(policy);
    return { ...own, allow: [...own.allow, ...approvals.rules()] };
  },
  upstream: { address: "127.0.0.1", port: upstream.port },
  admit: async () => undefined,
  refused: () => undefined,
  refuseAddress: (address) => special.refusal(address),
  ask: (name) => approvals.decide(name),
};
const query = (name: string): Promise<unknown> =>
  filterDnsMessage(
    deps,
    dnsPacket.encode({ id: 7, type: "query", questions: [{ type: "A", name, class: "IN" }] }),
    "udp",
  ).then(decodeAnswer);

/** From the decision to the held answer: each name asked once, answered `once` when its question comes. */
async function heldAnswerMs(i: number): Promise<number> {
  const came = new Promise<void>((resolve) => (questionCame = resolve));
  const answer = query(heldName(i));
  await came;
  const decided = performance.now();
  waiting?.({ decision: "once" });
  const decoded = (await answer) as { answers?: unknown[] };
  if (decoded.answers?.length !== 1) throw new Error(`${heldName(i)} was not answered after its approval`);
  return performance.now() - decided;
}

try {
  const plain = await medianMs(() => query("allowed.example.test"), 300, 50);
  const samples: number[] = [];
  for (let i = 0; i < held; i++) samples.push(await heldAnswerMs(i));
  samples.sort((a, b) => a - b);
  const heldMedian = samples[Math.floor(samples.length / 2)] ?? Number.NaN;
  const cli = await medianMs(
    () => execFileSync(process.execPath, [join(packageRoot(), "dist/bin/main.js"), "--version"]),
    10,
    2,
  );
  process.stdout.write("Approval latency (network ask mode)\n");
  process.stdout.write(
    `  ${"allowed name through the DNS filter".padEnd(52)} ${plain.toFixed(3).padStart(9)} ms  (baseline)\n`,
  );
  process.stdout.write(
    `  ${"held name, from the decision to its answer".padEnd(52)} ${heldMedian.toFixed(3).padStart(9)} ms  ×${(heldMedian / plain).toFixed(1)} (p99 ${(samples[Math.floor(samples.length * 0.99)] ?? 0).toFixed(3)} ms)\n`,
  );
  process.stdout.write(
    `  ${"forage-ctl --version (the CLI's own start)".padEnd(52)} ${cli.toFixed(3).padStart(9)} ms\n`,
  );
} finally {
  upstream.close();
}

import type { Packet, RecordType } from "dns-packet";
import { chainVerdict } from "../../../../generator/policy/network/chain-verdict.js";
import { deniedBy, nameVerdict, type NameVerdict } from "../../../../generator/policy/network/name-verdict.js";
import type { PolicyRules } from "../../../../generator/policy/network/policy-rules.js";
import { answerMessage, readQuery, refusalMessage, rcode } from "./dns-message.js";
import { askUpstream, type UpstreamResolver } from "./upstream.js";
import type { AnswerCache, Chain, RecordAnswer } from "./answer-cache.js";
import type { AdmittedLookup, NameOutcome } from "../name-approvals.js";

/** An address the filter resolved for an allowed name, to be admitted before the answer goes out. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
  /** null: any port; else only these (from `name:port` entries). */
  ports: number[] | null;
  /** The record's TTL in seconds. */
  ttl: number;
  /** The name the sandbox asked for (the first of the CNAME chain). */
  name: string;
  /** The CNAME chain's names after `name`: they narrow `ports` again when the policy changes. */
  chain: string[];
  /** When its approval ends (a name admitted when asked, `--for`): no element outlives it. Absent: the policy's, no end. */
  untilMs?: number;
}

/** A name the filter refused, for the denial records. */
export interface RefusedName {
  name: string;
  type: string;
  rule: string;
}

export interface DnsFilterDeps {
  /** The sandbox's policy now (it changes live with `forage-ctl network`), its entries parsed. */
  policy: () => PolicyRules;
  upstream: UpstreamResolver;
  /** Puts the addresses in the sandbox's allowed sets; the answer waits for it. */
  admit: (addresses: ResolvedAddress[]) => Promise<void>;
  refused: (refusal: RefusedName) => void;
  /** Why an address may not be admitted (the host's, link-local, special-purpose, a private range not allowed), or null. */
  refuseAddress: (address: string) => string | null;
  /** The upstream resolver failed to answer (the sandbox got SERVFAIL). */
  upstreamFailed?: (error: Error) => void;
  /**
   * Ask mode: decides a lookup of a name the allowlist does not name, asking the human (the
   * question held meanwhile) when nothing decided it before (name-approvals.ts): refused, allowed
   * by the policy now (`always`), or an admitted lookup whose answer is admitted only as far as
   * the approval goes (its port, its addresses).
   */
  ask?: (name: string) => Promise<NameOutcome>;
  /** Learn mode: a name the sandbox resolved (A, AAAA or CNAME, answered NOERROR) and the addresses it got. */
  learned?: (name: string, addresses: string[]) => void;
  /** The sandbox's cache of upstream answers (A, AAAA, CNAME); none: every question goes upstream. */
  cache?: AnswerCache;
}

/**
 * Record types a restricted sandbox may ask about allowed names; others get an empty answer.
 * Learn mode records names asked with these types only: the allowlist it suggests is for
 * restricted mode, where other types (PTR of reverse lookups, TXT, SRV) answer nothing anyway.
 */
const restrictedTypes: readonly string[] = ["A", "AAAA", "CNAME"];
/** Longest CNAME chain followed, and how many extra upstream questions it may take. */
const maxChain = 16;
const maxHops = 8;
/** Answers' TTLs are capped so a client never caches an address past its element's life. */
export const maxTtl = 86_400;

/**
 * Answers one DNS message from the sandbox:
 * - refused names (deny list, mode none, not in the allowlist) get NXDOMAIN (REFUSED in mode
 *   none) and are never sent upstream, so their labels carry nothing out;
 * - allowed names are asked upstream; the CNAME chain from the asked name is followed (asking
 *   again when the answer stops at a CNAME), and only that chain and its A/AAAA records are
 *   answered, after the addresses are admitted to the sandbox's sets; addresses that are the
 *   host's, link-local, special-purpose or private (unless admitted) are left out of the answer
 *   and refused; the addresses get the ports every allowlisted name on the chain has;
 * - the upstream's answers (A, AAAA, CNAME chains that resolved) are kept in the sandbox's cache
 *   for their TTL when it has one (answer-cache.ts): every step above but the round trip upstream
 *   is taken again for an answer from it;
 * - full mode forwards every type, filtering only the deny list; in learn mode, the names asked
 *   (A, AAAA, CNAME) that resolved are handed to `learned` with their addresses;
 * - ask mode (restricted): a name the allowlist does not name (and the deny list does not) is held
 *   and asked about; nothing goes upstream until it is admitted, and a refusal is NXDOMAIN. An
 *   admitted name's answer is admitted on the approved port and only at approved addresses: an
 *   answer with another address waits for a new question, and is NXDOMAIN if it is refused.
 * Returns null for bytes that are not DNS at all (dropped).
 */
export async function filterDnsMessage(
  deps: DnsFilterDeps,
  message: Buffer,
  transport: "udp" | "tcp",
): Promise<Buffer | null> {
  const read = readQuery(message);
  if (read === null) return null;
  if ("refuse" in read) return refusalMessage(read.refuse.id);
  const { query } = read;
  const { policy, verdict, lookup } = await judgeName(deps, query.name);
  try {
    if (!verdict.allowed) {
      deps.refused({ name: query.name, type: query.question.type, rule: verdict.rule });
      return answerMessage(query, policy.mode === "none" ? rcode.refused : rcode.nxDomain, [], transport);
    }
    if (policy.mode !== "full" && !restrictedTypes.includes(query.question.type))
      return answerMessage(query, rcode.noError, [], transport);
    const chain = await upstreamChain(deps, query.name, query.question.type);
    if (policy.mode === "full") {
      if (policy.learn && chain.code === rcode.noError && restrictedTypes.includes(query.question.type))
        deps.learned?.(query.name, addressesIn(chain.records));
      return answerMessage(
        query,
        chain.code,
        chain.records.map((record) => capTtl(record)),
        transport,
      );
    }
    return await answerRestricted(deps, query, chain, transport, lookup);
  } catch (error) {
    deps.upstreamFailed?.(error as Error);
    return answerMessage(query, rcode.servFail, [], transport);
  } finally {
    lookup?.close();
  }
}

type Query = Extract<ReturnType<typeof readQuery>, { query: unknown }>["query"];

/** The policy, the name's verdict under it, and in ask mode the admitted lookup (after asking, if it had to). */
async function judgeName(
  deps: DnsFilterDeps,
  name: string,
): Promise<{ policy: PolicyRules; verdict: NameVerdict; lookup?: AdmittedLookup }> {
  const policy = deps.policy();
  const verdict = nameVerdict(policy, name);
  if (
    verdict.allowed ||
    policy.mode !== "restricted" ||
    !policy.ask ||
    deps.ask === undefined ||
    deniedBy(policy, name) !== undefined
  )
    return { policy, verdict };
  const outcome = await deps.ask(name);
  const now = deps.policy();
  if ("refused" in outcome) return { policy: now, verdict: { allowed: false, rule: outcome.refused } };
  if ("policy" in outcome) return { policy: now, verdict: nameVerdict(now, name) };
  return { policy: now, verdict: { allowed: true, ports: [outcome.lookup.port] }, lookup: outcome.lookup };
}

/**
 * A restricted answer: the chain judged under the policy in force now (it may have changed while
 * upstream answered), or for an admitted lookup its approval's port (a denied name on the chain
 * still refuses); addresses that may never be admitted left out; then the admission, before the
 * answer goes out. The ports are those every allowlisted name on the chain is allowed on (chain-verdict.ts).
 */
async function answerRestricted(
  deps: DnsFilterDeps,
  query: Query,
  chain: Chain,
  transport: "udp" | "tcp",
  lookup: AdmittedLookup | undefined,
): Promise<Buffer> {
  const targets = aliasTargets(chain.records);
  const now =
    lookup === undefined
      ? chainVerdict(deps.policy(), [query.name, ...targets])
      : admittedVerdict(deps.policy(), targets, lookup.port);
  if (!now.allowed || deps.policy().mode === "none") {
    deps.refused({ name: query.name, type: query.question.type, rule: now.allowed ? "mode none" : now.rule });
    return answerMessage(query, rcode.refused, [], transport);
  }
  const records = chain.records.filter((record) => {
    if (record.type !== "A" && record.type !== "AAAA") return true;
    const refusal = deps.refuseAddress(String(record.data));
    if (refusal !== null) deps.refused({ name: query.name, type: record.type, rule: refusal });
    return refusal === null;
  });
  let untilOf = (_address: string): number | undefined => undefined;
  if (lookup !== undefined) {
    const admitted = await lookup.admit(addressesIn(records));
    if ("refused" in admitted) {
      deps.refused({ name: query.name, type: query.question.type, rule: admitted.refused });
      return answerMessage(query, rcode.nxDomain, [], transport);
    }
    untilOf = (address) => admitted.untilMs.get(address);
  }
  await deps.admit(addressesOf(records, query.name, targets, now.ports, untilOf));
  return answerMessage(
    query,
    chain.code,
    records.map((record) =>
      capTtl(record, record.type === "A" || record.type === "AAAA" ? untilOf(String(record.data)) : undefined),
    ),
    transport,
  );
}

/** An admitted lookup's verdict: the approval's port, unless a name on the chain is denied. */
function admittedVerdict(policy: PolicyRules, targets: readonly string[], port: number): NameVerdict {
  const denied = targets.find((target) => deniedBy(policy, target) !== undefined);
  if (denied !== undefined)
    return { allowed: false, rule: `CNAME to ${denied}: deny ${deniedBy(policy, denied)?.entry ?? ""}` };
  return policy.mode === "restricted"
    ? { allowed: true, ports: [port] }
    : { allowed: false, rule: `mode ${policy.mode}` };
}

/** The upstream's chain for the name, from the sandbox's cache when it holds one (A, AAAA and CNAME only). */
async function upstreamChain(deps: DnsFilterDeps, name: string, type: RecordType): Promise<Chain> {
  const { cache } = deps;
  if (cache === undefined || !restrictedTypes.includes(type)) return followChain(deps.upstream, name, type);
  const kept = cache.get(name, type);
  if (kept !== undefined) return kept;
  const chain = await followChain(deps.upstream, name, type);
  cache.put(name, type, chain, rcode.noError);
  return chain;
}

/**
 * The CNAME chain from the asked name and the records of the asked type at its end, taken only
 * from records whose owner is on the chain (anything else the upstream sent is dropped).
 */
async function followChain(upstream: UpstreamResolver, name: string, type: RecordType): Promise<Chain> {
  const seen = new Set<string>([name]);
  const records: RecordAnswer[] = [];
  let current = name;
  for (let hop = 0; hop < maxHops; hop++) {
    const packet: Packet = await askUpstream(upstream, current, type);
    const code = upstreamCode(packet);
    if (code !== rcode.noError) return { code, records };
    const answers = (packet.answers ?? []).filter((record): record is RecordAnswer => record.type !== "OPT");
    let end = current;
    for (;;) {
      const alias = answers.find((record) => record.type === "CNAME" && record.name.toLowerCase() === end);
      if (alias === undefined || type === "CNAME") break;
      const target = String(alias.data).toLowerCase().replace(/\.$/, "");
      if (seen.has(target) || seen.size >= maxChain) return { code: rcode.servFail, records: [] };
      seen.add(target);
      records.push(alias);
      end = target;
    }
    const found = answers.filter((record) => record.type === type && record.name.toLowerCase() === end);
    records.push(...found);
    if (found.length > 0 || end === current) return { code, records };
    current = end; // the answer stopped at a CNAME: ask for its target
  }
  return { code: rcode.servFail, records: [] };
}

/** The addresses `name` resolves to upstream (IPv4 first, then IPv6), through its CNAME chain. */
export async function resolveAddresses(upstream: UpstreamResolver, name: string): Promise<string[]> {
  const addresses: string[] = [];
  for (const type of ["A", "AAAA"] as const) {
    const chain = await followChain(upstream, name, type);
    addresses.push(...chain.records.filter((record) => record.type === type).map((record) => String(record.data)));
  }
  return addresses;
}

function upstreamCode(packet: Packet): number {
  const code = (packet.flags ?? 0) & 0xf;
  return code === rcode.noError || code === rcode.nxDomain ? code : rcode.servFail;
}

function addressesOf(
  records: RecordAnswer[],
  name: string,
  chain: string[],
  ports: number[] | null,
  untilOf: (address: string) => number | undefined,
): ResolvedAddress[] {
  return records.flatMap((record): ResolvedAddress[] => {
    if (record.type !== "A" && record.type !== "AAAA") return [];
    const untilMs = untilOf(String(record.data));
    const resolved: ResolvedAddress = {
      address: String(record.data),
      family: record.type === "A" ? 4 : 6,
      ports,
      ttl: record.ttl ?? 0,
      name,
      chain,
    };
    return [untilMs === undefined || untilMs === Infinity ? resolved : { ...resolved, untilMs }];
  });
}

function addressesIn(records: RecordAnswer[]): string[] {
  return records.flatMap((record) => (record.type === "A" || record.type === "AAAA" ? [String(record.data)] : []));
}

/** The names the chain's CNAME records lead to, in order. */
function aliasTargets(records: RecordAnswer[]): string[] {
  return records.flatMap((record) =>
    record.type === "CNAME" ? [String(record.data).toLowerCase().replace(/\.$/, "")] : [],
  );
}

/** The record with its TTL capped (maxTtl, and the end of its address's approval: no client caches past it). */
function capTtl(record: RecordAnswer, untilMs?: number): RecordAnswer {
  const approved =
    untilMs === undefined || untilMs === Infinity ? maxTtl : Math.max(Math.floor((untilMs - Date.now()) / 1000), 0);
  return { ...record, ttl: Math.min(record.ttl ?? 0, maxTtl, approved) };
}

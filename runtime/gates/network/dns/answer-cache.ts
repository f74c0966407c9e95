import type { Answer } from "dns-packet";

/** Answer records with owner, TTL and data (every kind but EDNS's OPT pseudo-record). */
export type RecordAnswer = Exclude<Answer, { type: "OPT" }>;

/** What the upstream answered for a name and type: its code and the CNAME chain's records. */
export interface Chain {
  code: number;
  records: RecordAnswer[];
}

export interface AnswerCacheOptions {
  /** Most answers kept; the oldest stored goes first (default 512). */
  maxEntries?: number;
  /** Answers with more records than this are not kept (default 32): the cache's memory stays small. */
  maxRecords?: number;
  /** Longest an answer is kept, whatever its TTL says, in seconds. */
  maxTtlSeconds: number;
  now?: () => number;
}

interface Entry {
  chain: Chain;
  storedAt: number;
  expiresAt: number;
}

/**
 * One sandbox's cache of upstream answers (A, AAAA, CNAME chains that resolved), kept for their
 * smallest TTL, as any caching resolver does. A sandbox asking for the same name again is then
 * answered without a round trip upstream: the question is still judged under the policy in force
 * and its addresses still admitted first, since only the upstream's part is cached. Handed out
 * with each record's TTL less the time it was kept, so no client caches past the upstream's TTL.
 * Only positive answers are kept: a name that did not resolve is asked again next time. One per
 * sandbox: a shared cache would tell one sandbox, by its speed, which names another asked for.
 */
export class AnswerCache {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly maxRecords: number;
  private readonly now: () => number;

  constructor(private readonly options: AnswerCacheOptions) {
    this.maxEntries = options.maxEntries ?? 512;
    this.maxRecords = options.maxRecords ?? 32;
    this.now = options.now ?? Date.now;
  }

  /** The answer kept for `name` (lower case) and `type`, its TTLs counted down; undefined if none is or it ran out. */
  get(name: string, type: string): Chain | undefined {
    const key = `${type} ${name}`;
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    const now = this.now();
    if (now >= entry.expiresAt) {
      this.entries.delete(key);
      return undefined;
    }
    const kept = Math.floor((now - entry.storedAt) / 1000);
    return {
      code: entry.chain.code,
      records: entry.chain.records.map((record) => ({ ...record, ttl: Math.max((record.ttl ?? 0) - kept, 0) })),
    };
  }

  /** Keeps a positive answer (`noError`: its code) for its smallest TTL; others are not kept. */
  put(name: string, type: string, chain: Chain, noError: number): void {
    if (chain.code !== noError || chain.records.length === 0 || chain.records.length > this.maxRecords) return;
    const seconds = Math.min(...chain.records.map((record) => record.ttl ?? 0), this.options.maxTtlSeconds);
    if (!(seconds > 0)) return;
    const key = `${type} ${name}`;
    const now = this.now();
    this.entries.delete(key); // stored again: it goes to the back of the line
    this.entries.set(key, { chain, storedAt: now, expiresAt: now + seconds * 1000 });
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

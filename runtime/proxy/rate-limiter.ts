/** Which limit a request ran into, and when it may try again. */
export interface RateRefusal {
  limit: "requests" | "tokens";
  allowed: number;
  windowMs: number;
  retryAfterSeconds: number;
}

/**
 * Per-sandbox sliding-window limits: requests admitted, and (optionally) model tokens the API
 * reported for answered requests. Each window keeps only its own timestamps.
 */
export class RateLimiter {
  private readonly requests = new Map<string, number[]>();
  private readonly tokens = new Map<string, [number, number][]>();

  constructor(private readonly limits: { requests: number; tokens: number | null; windowMs: number }) {}

  /** Admits a request (and counts it) or says which limit refuses it. */
  admit(sandbox: string, now: number): RateRefusal | null {
    const since = now - this.limits.windowMs;
    const times = (this.requests.get(sandbox) ?? []).filter((time) => time > since);
    this.requests.set(sandbox, times);
    if (times.length >= this.limits.requests) return this.refusal("requests", this.limits.requests, (times[0] ?? now) + this.limits.windowMs - now);
    if (this.limits.tokens !== null) {
      const spent = (this.tokens.get(sandbox) ?? []).filter(([time]) => time > since);
      this.tokens.set(sandbox, spent);
      const total = spent.reduce((sum, [, count]) => sum + count, 0);
      if (total >= this.limits.tokens) return this.refusal("tokens", this.limits.tokens, (spent[0]?.[0] ?? now) + this.limits.windowMs - now);
    }
    times.push(now);
    return null;
  }

  /** Charges the tokens an answer reported. */
  spend(sandbox: string, count: number, now: number): void {
    if (this.limits.tokens === null || count <= 0) return;
    const spent = this.tokens.get(sandbox) ?? [];
    spent.push([now, count]);
    this.tokens.set(sandbox, spent);
  }

  /** Drops the state of sandboxes that are gone. */
  forgetAllBut(sandboxes: ReadonlySet<string>): void {
    for (const map of [this.requests, this.tokens]) for (const name of [...map.keys()]) if (!sandboxes.has(name)) map.delete(name);
  }

  private refusal(limit: RateRefusal["limit"], allowed: number, waitMs: number): RateRefusal {
    return { limit, allowed, windowMs: this.limits.windowMs, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }
}

/** "30s" / "1m" / "2h" → milliseconds (the schema allows only these forms). */
export function windowMs(window: string): number {
  const unit = { s: 1000, m: 60_000, h: 3_600_000 }[window.slice(-1)] ?? 1000;
  return Number(window.slice(0, -1)) * unit;
}

/** Which limit a request ran into, and when it may try again. */
export interface RateRefusal {
  limit: "requests" | "tokens";
  allowed: number;
  windowMs: number;
  retryAfterSeconds: number;
}

/**
 * Timestamped amounts in time order, with their sum. Old entries leave from the front by moving
 * an index (compacted now and then), so each request costs O(1) however busy the window is.
 */
class TimeWindow {
  private times: number[] = [];
  private amounts: number[] = [];
  private head = 0;
  sum = 0;

  add(time: number, amount: number): void {
    this.times.push(time);
    this.amounts.push(amount);
    this.sum += amount;
  }

  /** Drops entries at or before `since`. */
  trim(since: number): void {
    while (this.head < this.times.length && (this.times[this.head] as number) <= since) {
      this.sum -= this.amounts[this.head] as number;
      this.head += 1;
    }
    if (this.head > 1024 && this.head * 2 > this.times.length) {
      this.times = this.times.slice(this.head);
      this.amounts = this.amounts.slice(this.head);
      this.head = 0;
    }
  }

  /** The time of the oldest entry still in the window. */
  oldest(): number | undefined {
    return this.times[this.head];
  }

  empty(): boolean {
    return this.head >= this.times.length;
  }
}

/**
 * Per-sandbox sliding-window limits: requests admitted, and (optionally) model tokens the API
 * reported for answered requests.
 */
export class RateLimiter {
  private readonly requests = new Map<string, TimeWindow>();
  private readonly tokens = new Map<string, TimeWindow>();

  constructor(private readonly limits: { requests: number; tokens: number | null; windowMs: number }) {}

  /** Admits a request (and counts it) or says which limit refuses it. */
  admit(sandbox: string, now: number): RateRefusal | null {
    const since = now - this.limits.windowMs;
    const requests = windowOf(this.requests, sandbox);
    requests.trim(since);
    if (requests.sum >= this.limits.requests)
      return this.refusal("requests", this.limits.requests, requests.oldest() ?? now, now);
    const tokens = this.tokensSpent(sandbox, now);
    if (tokens !== null) return tokens;
    requests.add(now, 1);
    return null;
  }

  /**
   * The token refusal when the sandbox has spent its tokens, else null. Asked again when a
   * request gets its turn (SandboxGate): with one request in flight per token-limited sandbox,
   * the limit is passed by at most the tokens of the one request admitted while under it.
   */
  tokensSpent(sandbox: string, now: number): RateRefusal | null {
    if (this.limits.tokens === null) return null;
    const tokens = windowOf(this.tokens, sandbox);
    tokens.trim(now - this.limits.windowMs);
    return tokens.sum >= this.limits.tokens
      ? this.refusal("tokens", this.limits.tokens, tokens.oldest() ?? now, now)
      : null;
  }

  /** Charges the tokens an answer reported. */
  spend(sandbox: string, count: number, now: number): void {
    if (this.limits.tokens === null || count <= 0) return;
    windowOf(this.tokens, sandbox).add(now, count);
  }

  /** Drops the state of sandboxes that are gone. */
  forgetAllBut(sandboxes: ReadonlySet<string>): void {
    for (const map of [this.requests, this.tokens])
      for (const name of [...map.keys()]) if (!sandboxes.has(name)) map.delete(name);
  }

  private refusal(limit: RateRefusal["limit"], allowed: number, oldest: number, now: number): RateRefusal {
    const waitMs = oldest + this.limits.windowMs - now;
    return { limit, allowed, windowMs: this.limits.windowMs, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }
}

function windowOf(map: Map<string, TimeWindow>, sandbox: string): TimeWindow {
  let window = map.get(sandbox);
  if (window === undefined) {
    window = new TimeWindow();
    map.set(sandbox, window);
  }
  return window;
}

/** "30s" / "1m" / "2h" → milliseconds (the schema allows only these forms). */
export function windowMs(window: string): number {
  const unit = { s: 1000, m: 60_000, h: 3_600_000 }[window.slice(-1)] ?? 1000;
  return Number(window.slice(0, -1)) * unit;
}

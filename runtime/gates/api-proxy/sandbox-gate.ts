/**
 * Requests one sandbox may have forwarded at once (more wait in its line): as many as agents
 * usually run in parallel, few enough that one sandbox's flood leaves the proxy to the others
 * (bench/proxy.bench.ts: a quiet sandbox's p99 under another's 200-connection flood was 72 ms
 * without the gate, 27 ms at 16, 15 ms at 8).
 */
export const maxInFlightPerSandbox = 8;

/** Requests one sandbox may have waiting: as many as it may hold connections (api-proxy.ts). */
export const maxWaitingPerSandbox = 256;

/**
 * The proxy's gate: with a token limit one request of a sandbox is in flight at a time, since
 * usage is known only from answers (the limit is then passed by at most one request's tokens).
 */
export function proxyGate(tokenLimited: boolean): SandboxGate {
  return new SandboxGate(() => (tokenLimited ? 1 : maxInFlightPerSandbox), maxWaitingPerSandbox);
}

/** A place in a sandbox's line: `leave()` gives the slot back, or leaves the queue if still waiting. */
export interface GatePass {
  leave(): void;
}

interface Line {
  inFlight: number;
  waiting: (() => void)[];
}

/**
 * Per-sandbox concurrency: at most `slots(sandbox)` requests of one sandbox are forwarded at a
 * time; the rest wait in its own line (first come, first served), up to `maxWaiting`. One
 * sandbox's flood then queues behind itself instead of crowding the proxy for everyone, and a
 * sandbox under a token limit can be held to one request in flight (see RateLimiter).
 */
export class SandboxGate {
  private readonly lines = new Map<string, Line>();

  constructor(
    private readonly slots: (sandbox: string) => number,
    private readonly maxWaiting: number,
  ) {}

  /**
   * Calls `go` once a slot is free (at once if one is); null when the line is full. The caller
   * must `leave()` when the request ends, whether `go` ran or not.
   */
  enter(sandbox: string, go: () => void): GatePass | null {
    const line = this.lines.get(sandbox) ?? { inFlight: 0, waiting: [] };
    this.lines.set(sandbox, line);
    let state: "waiting" | "inside" | "gone" = "waiting";
    const start = (): void => {
      state = "inside";
      line.inFlight += 1;
      go();
    };
    const pass: GatePass = {
      leave: () => {
        if (state === "inside") {
          line.inFlight -= 1;
          this.next(sandbox, line);
        } else if (state === "waiting") line.waiting.splice(line.waiting.indexOf(start), 1);
        state = "gone";
      },
    };
    if (line.inFlight < this.slots(sandbox)) {
      start();
      return pass;
    }
    if (line.waiting.length >= this.maxWaiting) return null;
    line.waiting.push(start);
    return pass;
  }

  /** Requests of a sandbox in flight now. */
  inFlight(sandbox: string): number {
    return this.lines.get(sandbox)?.inFlight ?? 0;
  }

  private next(sandbox: string, line: Line): void {
    while (line.inFlight < this.slots(sandbox) && line.waiting.length > 0) (line.waiting.shift() as () => void)();
    if (line.inFlight === 0 && line.waiting.length === 0) this.lines.delete(sandbox);
  }
}

import { socketsPerSandbox } from "./upstream-agents.js";

/**
 * Requests one sandbox may have forwarded at once while another sandbox uses the proxy too (more
 * wait in its line): as many as agents usually run in parallel, few enough that one sandbox's
 * flood leaves the proxy to the others (bench/proxy.bench.ts: a quiet sandbox's p99 under
 * another's 200-connection flood was 72 ms without the gate, 27 ms at 16, 15 ms at 8).
 */
export const maxInFlightPerSandbox = 8;

/**
 * Requests a sandbox alone on the proxy may have forwarded at once: as many as its connections to
 * one upstream. A share of 8 kept while nobody else asks would hold a ninth parallel model answer
 * of one agent (subagents, each streaming for a minute) behind the first.
 */
export const maxInFlightAlone = socketsPerSandbox;

/** How long after its last request ended a sandbox still counts as using the proxy. */
export const sharingWindowMs = 1_000;

/** Requests one sandbox may have waiting: as many as it may hold connections (api-proxy.ts). */
export const maxWaitingPerSandbox = 256;

/**
 * The proxy's gate: with a token limit one request of a sandbox is in flight at a time, since
 * usage is known only from answers (the limit is then passed by at most one request's tokens).
 */
export function proxyGate(tokenLimited: boolean): SandboxGate {
  return tokenLimited
    ? new SandboxGate(() => 1, maxWaitingPerSandbox)
    : new SandboxGate(() => maxInFlightPerSandbox, maxWaitingPerSandbox, { alone: () => maxInFlightAlone });
}

/** A place in a sandbox's line: `leave()` gives the slot back, or leaves the queue if still waiting. */
export interface GatePass {
  leave(): void;
}

interface Line {
  inFlight: number;
  waiting: (() => void)[];
  /** When its last request ended (it has none now), or undefined while it has some. */
  idleSince: number | undefined;
  /** A sweep is due (see sweep): one timer per line, not one per request. */
  sweepDue: boolean;
}

export interface SharingOptions {
  /** Slots of a sandbox while no other uses the proxy (default: its shared slots). */
  alone?: (sandbox: string) => number;
  /** How long an idle sandbox still counts as another user (default sharingWindowMs). */
  windowMs?: number;
}

/**
 * Per-sandbox concurrency, work-conserving: while other sandboxes use the proxy (a request in
 * flight or waiting, or one ended within the window), at most `slots(sandbox)` requests of one
 * sandbox are forwarded at a time; alone, up to `alone(sandbox)`. The rest wait in its own line
 * (first come, first served), up to `maxWaiting`. One sandbox's flood then queues behind itself
 * as soon as another sandbox asks (what it has in flight beyond its share finishes first), and a
 * sandbox under a token limit can be held to one request in flight (see RateLimiter).
 */
export class SandboxGate {
  private readonly lines = new Map<string, Line>();
  private readonly alone: (sandbox: string) => number;
  private readonly windowMs: number;

  constructor(
    private readonly slots: (sandbox: string) => number,
    private readonly maxWaiting: number,
    sharing: SharingOptions = {},
  ) {
    this.alone = sharing.alone ?? slots;
    this.windowMs = sharing.windowMs ?? sharingWindowMs;
  }

  /**
   * Calls `go` once a slot is free (at once if one is); null when the line is full. The caller
   * must `leave()` when the request ends, whether `go` ran or not.
   */
  enter(sandbox: string, go: () => void): GatePass | null {
    const line = this.lines.get(sandbox) ?? { inFlight: 0, waiting: [], idleSince: undefined, sweepDue: false };
    this.lines.set(sandbox, line);
    let state: "waiting" | "inside" | "gone" = "waiting";
    const start = (): void => {
      state = "inside";
      line.inFlight += 1;
      line.idleSince = undefined;
      go();
    };
    const pass: GatePass = {
      leave: () => {
        if (state === "inside") {
          line.inFlight -= 1;
          this.next(sandbox, line);
        } else if (state === "waiting") {
          line.waiting.splice(line.waiting.indexOf(start), 1);
          this.next(sandbox, line);
        }
        state = "gone";
      },
    };
    if (line.inFlight < this.limit(sandbox)) {
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

  private limit(sandbox: string): number {
    const shared = this.slots(sandbox);
    return this.othersUsing(sandbox) ? shared : Math.max(shared, this.alone(sandbox));
  }

  /** True when a sandbox other than `sandbox` has a request in flight or waiting, or had one within the window. */
  private othersUsing(sandbox: string): boolean {
    const now = Date.now();
    for (const [other, line] of this.lines) {
      if (other === sandbox) continue;
      if (line.idleSince === undefined || line.waiting.length > 0 || now - line.idleSince < this.windowMs) return true;
    }
    return false;
  }

  private next(sandbox: string, line: Line): void {
    while (line.inFlight < this.limit(sandbox) && line.waiting.length > 0) (line.waiting.shift() as () => void)();
    if (line.inFlight > 0 || line.waiting.length > 0) return;
    line.idleSince = Date.now();
    if (!line.sweepDue) this.sweepLater(sandbox, line, this.windowMs);
  }

  private sweepLater(sandbox: string, line: Line, afterMs: number): void {
    line.sweepDue = true;
    setTimeout(() => this.sweep(sandbox, line), afterMs).unref();
  }

  /**
   * An idle line whose window has passed goes, and the lines held to their share meanwhile may
   * use the room it leaves (their next requests would otherwise start only as theirs end).
   */
  private sweep(sandbox: string, line: Line): void {
    line.sweepDue = false;
    // Busy again: its next idle moment schedules the next sweep.
    if (this.lines.get(sandbox) !== line || line.idleSince === undefined) return;
    const left = line.idleSince + this.windowMs - Date.now();
    if (left > 0) return this.sweepLater(sandbox, line, left);
    this.lines.delete(sandbox);
    for (const [other, held] of this.lines) if (held.waiting.length > 0) this.next(other, held);
  }
}

import { performance } from "node:perf_hooks";

/** One timed phase of an operation: when it began after the operation did, and how long it took. */
export interface PhaseTiming {
  phase: string;
  startMs: number;
  ms: number;
}

/**
 * Records how long the phases of one operation take (`forage-ctl up --timings`, `npm run bench`).
 * Phases may overlap (the network guard starts while the root is built), so each keeps its own
 * start: read as a waterfall, not a sum.
 */
export class PhaseClock {
  private readonly origin = performance.now();
  private readonly recorded: PhaseTiming[] = [];

  /** Runs `work` as the phase `phase`; it is recorded whether it succeeds or fails. */
  async time<T>(phase: string, work: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await work();
    } finally {
      this.endPhase(phase, start);
    }
  }

  /** Records the phase `phase` as running from `start` (a `performance.now()`) until now. */
  endPhase(phase: string, start: number): void {
    this.recorded.push({ phase, startMs: round(start - this.origin), ms: round(performance.now() - start) });
  }

  /** The phases in the order they began, and the time since the clock was made. */
  report(): { phases: PhaseTiming[]; totalMs: number } {
    return {
      phases: [...this.recorded].sort((a, b) => a.startMs - b.startMs),
      totalMs: round(performance.now() - this.origin),
    };
  }
}

/** Times `work` on the clock when there is one (most callers have none). */
export function timed<T>(clock: PhaseClock | undefined, phase: string, work: () => Promise<T>): Promise<T> {
  return clock === undefined ? work() : clock.time(phase, work);
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

import type { PhaseTiming } from "../runtime/core/phase-clock.js";

/**
 * `up --timings`: one line per phase, as a waterfall (start offset, then duration), e.g.
 * `   12.3 ms  +  80.1 ms  start: nspawn until the payload runs`. Phases may overlap.
 */
export function formatTimings(timings: { phases: PhaseTiming[]; totalMs: number }): string {
  const lines = timings.phases.map(
    (t) => `  ${t.startMs.toFixed(1).padStart(8)} ms  +${t.ms.toFixed(1).padStart(8)} ms  ${t.phase}`,
  );
  return `phases of up (start, duration):\n${lines.join("\n")}\n  total ${timings.totalMs.toFixed(1)} ms\n`;
}

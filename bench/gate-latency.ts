// A gate's added latency, one call at a time: the same call made straight and through the gate,
// the two paths alternating round by round (drift cancels), both warmed first; reported as p50
// and p99 of each and what the gate adds. Shared by the MCP gate's benches.

/** The calls' times in ms, per path. */
export interface PathSamples {
  direct: number[];
  gate: number[];
}

/** `calls` rounds of `perRound` calls on each path in turn (after 50 unmeasured warm-up calls each). */
export async function measureAlternating(
  call: (path: keyof PathSamples, i: number) => Promise<unknown>,
  rounds: number,
  perRound: number,
): Promise<PathSamples> {
  const samples: PathSamples = { direct: [], gate: [] };
  for (const path of ["direct", "gate"] as const) for (let i = 0; i < 50; i++) await call(path, i);
  for (let round = 0; round < rounds; round++)
    for (const path of round % 2 === 0 ? (["direct", "gate"] as const) : (["gate", "direct"] as const))
      for (let i = 0; i < perRound; i++) {
        const start = performance.now();
        await call(path, i);
        samples[path].push(performance.now() - start);
      }
  return samples;
}

/** The title, then p50 and p99 of each path, then what the gate adds. */
export function reportAdded(title: string, samples: PathSamples): void {
  const at = (values: number[], q: number): number => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;
  };
  process.stdout.write(`${title}\n`);
  for (const path of ["direct", "gate"] as const)
    process.stdout.write(
      `  ${path.padEnd(7)} p50 ${at(samples[path], 0.5).toFixed(2)} ms  p99 ${at(samples[path], 0.99).toFixed(2)} ms\n`,
    );
  const added = (q: number): string => (at(samples.gate, q) - at(samples.direct, q)).toFixed(2);
  process.stdout.write(`  added   p50 +${added(0.5)} ms  p99 +${added(0.99)} ms\n`);
}

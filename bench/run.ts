// Benchmark runner: `npm run bench`. Reports medians and each case's ratio to a baseline measured
// in the same process, so figures compare across machines. Never used for pass/fail in tests.
import { performance } from "node:perf_hooks";

export interface BenchCase {
  name: string;
  run: () => unknown | Promise<unknown>;
}

/** Median wall time in milliseconds of `iterations` runs after `warmup` runs. */
export async function medianMs(run: BenchCase["run"], iterations = 200, warmup = 50): Promise<number> {
  for (let i = 0; i < warmup; i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)] ?? Number.NaN;
}

/** Prints `name  median  ×baseline` for each case. */
export async function report(title: string, baseline: BenchCase, cases: BenchCase[]): Promise<void> {
  const base = await medianMs(baseline.run);
  process.stdout.write(`${title}\n  ${baseline.name.padEnd(44)} ${base.toFixed(3).padStart(9)} ms  (baseline)\n`);
  for (const c of cases) {
    const median = await medianMs(c.run);
    process.stdout.write(
      `  ${c.name.padEnd(44)} ${median.toFixed(3).padStart(9)} ms  ×${(median / base).toFixed(1)}\n`,
    );
  }
}

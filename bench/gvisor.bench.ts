// The gvisor runtime against the host-root runtime (nspawn), in one process, alternating rounds so
// both see the same machine: up until exec works, exec of `true`, and the host memory an idle
// sandbox holds (its cgroup's usage). Goals (issue 29): up ≤ 2× host-root's; exec ≤ 1.5×.
// Run as root: node dist/bench/gvisor.bench.js (after tsc -p tsconfig.bench.json).
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { destroySandbox } from "../runtime/sandbox/down.js";
import { execInRunning } from "../runtime/sandbox/exec.js";
import { upSandbox } from "../runtime/sandbox/up.js";
import { requireSandbox } from "../runtime/state/require-sandbox.js";
import { listMetadata } from "../runtime/state/metadata-store.js";
import { median } from "./bench-process.js";
import { benchSandboxes } from "./bench-sandboxes.js";

const rounds = 5;
const runtimes = ["nspawn", "gvisor"] as const;
const { dir, workspace, context } = await benchSandboxes(
  "forage-bench-gvisor-",
  'user: nobody\nnetwork: { base: "10.225" }\ntemplates:\n  bench:\n    agents:\n      helper: { package: bashInteractive, executable: bash }\n',
);

/** Bytes the sandbox's cgroup holds (memory.usage_in_bytes on v1, memory.current on v2), minus page cache. */
function memoryOf(directories: readonly string[]): number {
  for (const group of directories) {
    for (const [usage, stat, cache] of [
      ["memory.usage_in_bytes", "memory.stat", "total_cache"],
      ["memory.current", "memory.stat", "file"],
    ] as const) {
      try {
        const used = Number(readFileSync(join(group, usage), "utf8"));
        const line = readFileSync(join(group, stat), "utf8")
          .split("\n")
          .find((l) => l.startsWith(`${cache} `));
        return used - Number(line?.split(" ")[1] ?? 0);
      } catch {
        // not this hierarchy's memory controller
      }
    }
  }
  return Number.NaN;
}

const samples = new Map<string, number[]>();
const record = (name: string, value: number): void => void samples.set(name, [...(samples.get(name) ?? []), value]);
try {
  for (let round = 0; round < rounds; round++) {
    for (const runtime of runtimes) {
      const name = `${runtime === "gvisor" ? "v" : "n"}${round}`;
      let start = performance.now();
      await upSandbox(context, { name, template: "bench", workspace: { directory: workspace }, identity: {}, runtime });
      await execInRunning(context, await requireSandbox(context, name), ["true"]);
      record(`up until exec works, ${runtime}`, performance.now() - start);
      const running = await requireSandbox(context, name);
      const execs: number[] = [];
      for (let i = 0; i < 10; i++) {
        start = performance.now();
        await execInRunning(context, running, ["true"]);
        execs.push(performance.now() - start);
      }
      record(`exec true, ${runtime}`, median(execs));
      await new Promise((resolve) => setTimeout(resolve, 2000));
      record(`idle sandbox memory (MiB), ${runtime}`, memoryOf(running.cgroup?.directories ?? []) / 2 ** 20);
      await destroySandbox(context, name, 1);
    }
  }
} finally {
  for (const sandbox of await listMetadata(context.paths).catch(() => []))
    await destroySandbox(context, sandbox.name, 1).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}

process.stdout.write(`gvisor against host-root (${rounds} alternating rounds: median [min–max], ratio of medians)\n`);
for (const measure of ["up until exec works", "exec true", "idle sandbox memory (MiB)"]) {
  const of = (runtime: string): number[] => samples.get(`${measure}, ${runtime}`) ?? [];
  const [host, gvisor] = [median(of("nspawn")), median(of("gvisor"))];
  const spread = (values: number[]): string =>
    `${median(values).toFixed(1)} [${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}]`;
  process.stdout.write(
    `  ${measure.padEnd(28)} nspawn ${spread(of("nspawn")).padEnd(24)} gvisor ${spread(of("gvisor")).padEnd(26)} ×${(gvisor / host).toFixed(2)}\n`,
  );
}

// Memory benchmark (root): `npm run bench`, or `node dist/bench/memory.bench.js [COUNT] [--pool]`. Starts
// COUNT (default 50) idle host-root sandboxes with `network: none` (with --pool: warm pool members,
// as the daemon starts them, issue 30's goal ≤ 10 MiB each) and measures what they cost
// the host: the drop in MemAvailable per sandbox (page cache dropped before each reading; the
// whole host's, so other work on the machine shows in it), and the proportional set size of every
// process they brought (nspawn, its stub init, the payload, tmux, the shell, network guards), by kind.
// Target (issue 14): ≤ 20 MiB per idle sandbox with 50 of them.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { destroySandbox } from "../runtime/sandbox/down.js";
import { listMetadata } from "../runtime/state/metadata-store.js";
import { upSandbox } from "../runtime/sandbox/up.js";
import { makeMember } from "../runtime/sandbox/pool-make-member.js";
import { findTemplate } from "../runtime/core/context.js";
import { benchSandboxes } from "./bench-sandboxes.js";

const count = Number(process.argv[2] ?? 50);
const members = process.argv.includes("--pool");
const { dir, workspace, context } = await benchSandboxes(
  "forage-membench-",
  'user: nobody\nnetwork: { base: "10.241" }\ntemplates:\n  idle:\n    network: none\n    pool: { size: 1 }\n    agents:\n      helper: { package: bashInteractive, executable: bash }\n',
);

/** Bytes in use on the host: MemTotal − MemAvailable, after the page cache is dropped. */
function usedBytes(): number {
  execFileSync("sync");
  writeFileSync("/proc/sys/vm/drop_caches", "3");
  const info = readFileSync("/proc/meminfo", "utf8");
  const field = (name: string): number =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(info)?.[1] ?? Number.NaN) * 1024;
  return field("MemTotal") - field("MemAvailable");
}

/**
 * The PSS (bytes) and command name of every process the sandboxes brought: those in their
 * cgroups (nspawn, its stub init, what runs inside) and those started for them from this state
 * directory (network guards), not whatever else this machine runs meanwhile.
 */
function sandboxProcesses(): { name: string; pss: number }[] {
  const found: { name: string; pss: number }[] = [];
  for (const entry of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      const ours =
        /\/forage\/(m\d+|pool-[0-9a-f]{8})\.f\d+/.test(readFileSync(`/proc/${entry}/cgroup`, "utf8")) ||
        args.some((arg) => arg.includes(dir));
      if (!ours) continue;
      const pss =
        Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${entry}/smaps_rollup`, "utf8"))?.[1] ?? 0) * 1024;
      found.push({
        name: args[1]?.includes("guard") === true ? "network guard" : (args[0]?.split("/").pop() ?? "?"),
        pss,
      });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

const before = usedBytes();
let after = before;
let added: ReturnType<typeof sandboxProcesses> = [];
try {
  for (let i = 0; i < count; i++)
    if (members) await makeMember(context, findTemplate(context, "idle"));
    else
      await upSandbox(context, { name: `m${i}`, template: "idle", workspace: { directory: workspace }, identity: {} });
  await new Promise((resolve) => setTimeout(resolve, 3000)); // let everything settle into idleness
  after = usedBytes();
  added = sandboxProcesses();
} finally {
  // Every sandbox made goes, also when an up failed midway (that up removed its own already).
  for (const sandbox of await listMetadata(context.paths))
    await destroySandbox(context, sandbox.name, 1).catch((error: unknown) =>
      process.stderr.write(`bench: could not remove ${sandbox.name}: ${String(error)}\n`),
    );
  rmSync(dir, { recursive: true, force: true });
}
const byKind = new Map<string, { processes: number; pss: number }>();
for (const p of added) {
  const kind = byKind.get(p.name) ?? { processes: 0, pss: 0 };
  byKind.set(p.name, { processes: kind.processes + 1, pss: kind.pss + p.pss });
}

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
process.stdout.write(
  `host memory of ${count} ${members ? "warm pool members" : "idle sandboxes (network none, host root)"}\n`,
);
process.stdout.write(`  ${"MemAvailable drop per sandbox".padEnd(46)} ${mib((after - before) / count).padStart(10)}\n`);
process.stdout.write(
  `  ${"PSS of the processes they added, per sandbox".padEnd(46)} ${mib(added.reduce((sum, p) => sum + p.pss, 0) / count).padStart(10)}\n`,
);
for (const [name, kind] of [...byKind].sort((a, b) => b[1].pss - a[1].pss)) {
  process.stdout.write(
    `    ${`${name} (${kind.processes} processes)`.padEnd(44)} ${mib(kind.pss / count).padStart(10)}\n`,
  );
}

// Sandbox lifecycle benchmark (root, systemd-nspawn): `npm run bench:lifecycle`. Medians of
// repeated runs, each reported as a ratio to a bare `systemd-nspawn … /bin/true` measured in the
// same process. Targets (issue 3): up-to-ready ≤ 3× the bare start; exec ≤ 60 ms median.
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { runtimePaths } from "../runtime/core/paths.js";
import { packageRoot } from "../runtime/core/package-root.js";
import type { RuntimeContext } from "../runtime/core/context.js";
import { destroySandbox } from "../runtime/sandbox/down.js";
import { listMetadata } from "../runtime/state/metadata-store.js";
import { execInRunning } from "../runtime/sandbox/exec.js";

import { requireSandbox } from "../runtime/state/require-sandbox.js";
import { upSandbox } from "../runtime/sandbox/up.js";
import { makeMember } from "../runtime/sandbox/pool-make-member.js";
import { findTemplate } from "../runtime/core/context.js";
import { PhaseClock } from "../runtime/core/phase-clock.js";
import { loadSettings } from "../runtime/settings/load-settings.js";
import { settingsFile } from "../runtime/settings/settings-file.js";
import { nixBuild, nixString } from "../test/support/nix.js";

const dir = mkdtempSync(join(tmpdir(), "forage-bench-"));
chmodSync(dir, 0o711);
const env = {
  ...process.env,
  FORAGE_STATE_DIR: join(dir, "state"),
  FORAGE_RUN_DIR: join(dir, "run"),
  FORAGE_SECRETS_DIR: join(dir, "secrets"),
  FORAGE_SYSTEMS_DIR: join(dir, "systems"),
};
Object.assign(process.env, env);
const config = join(dir, "forage.yaml");
writeFileSync(
  config,
  'user: nobody\nnetwork: { base: "10.239" }\ntemplates:\n  bench:\n    agents:\n      helper: { package: bashInteractive, executable: bash }\n  nixbench:\n    extends: bench\n  pooled:\n    extends: bench\n    pool: { size: 1 }\n',
);
// nspawn-nix boots the test suite's stand-in NixOS system (nixpkgs cannot be fetched here).
const standIn = join(packageRoot(), "test/nix/stand-in/nixos-system.nix");
const system = nixBuild(`import ${nixString(standIn)} { uid = 65534; gid = 65534; }`);
mkdirSync(join(dir, "systems"));
symlinkSync(system, join(dir, "systems/nixbench"));
// A git repository for worktree sandboxes, owned by the configured user as a user's own is.
const repo = join(dir, "repo");
mkdirSync(repo);
writeFileSync(join(repo, "README.md"), "bench\n");
const git = (...args: string[]): void =>
  void execFileSync("git", ["-C", repo, ...args], {
    uid: 65534,
    gid: 65534,
    env: {
      PATH: "/usr/bin:/bin",
      HOME: dir,
      GIT_AUTHOR_NAME: "b",
      GIT_AUTHOR_EMAIL: "b@b",
      GIT_COMMITTER_NAME: "b",
      GIT_COMMITTER_EMAIL: "b@b",
    },
    stdio: "ignore",
  });
chownSync(repo, 65534, 65534);
chownSync(join(repo, "README.md"), 65534, 65534);
git("init", "-q");
git("add", "-A");
git("commit", "-qm", "bench");
const workspace = join(dir, "ws");
mkdirSync(workspace);
chownSync(workspace, 65534, 65534);
// Asynchronous on purpose: a synchronous child blocks this process's event loop, and with it the
// release of any lock helper an in-process step left closing (the CLI would then wait for it).
const cli = async (...args: string[]): Promise<void> => {
  await promisify(execFile)(process.execPath, [join(packageRoot(), "dist/bin/main.js"), "--config", config, ...args], {
    env,
  });
};

const quoted = (arg: string): string => `'${arg.replace(/'/g, "'\\''")}'`;

/**
 * Runs forage-ctl commands one after another from bash and returns bash's own clock around them
 * (EPOCHREALTIME, no process for the clock): what someone at a shell waits. A child of this
 * bench's large Node process costs ~10 ms more to fork than a shell's, which is not the CLI's.
 * Root runs with --config, as `sudo forage-ctl`; the configured user as typed, without (through
 * the daemon's socket, with the daemon's settings). Output is dropped; a failure stops the bench.
 */
async function timedInShell(as: "root" | "user", ...commands: string[][]): Promise<number> {
  const forageCtl = [
    process.execPath,
    join(packageRoot(), "dist/bin/main.js"),
    ...(as === "root" ? ["--config", config] : []),
  ];
  return timedArgvInShell(
    as,
    commands.map((args) => [...forageCtl, ...args]),
  );
}

/** timedInShell for any argv (the bare node baseline). */
async function timedArgvInShell(as: "root" | "user", commands: string[][]): Promise<number> {
  const runs = commands.map((argv) => `${argv.map(quoted).join(" ")} >/dev/null`).join(" && ");
  const script = `start=$EPOCHREALTIME; ${runs} || exit 1; end=$EPOCHREALTIME; echo "$start $end"`;
  const { stdout } = await promisify(execFile)("bash", ["-c", script], {
    env: { ...env, LC_ALL: "C" },
    ...(as === "user" ? { uid: 65534, gid: 65534, cwd: "/" } : {}),
  });
  const [start, end] = stdout.trim().split(" ").map(Number);
  if (start === undefined || end === undefined || !Number.isFinite(start) || !Number.isFinite(end))
    throw new Error(`bench: bash did not say how long it took (${JSON.stringify(stdout)})`);
  return (end - start) * 1000;
}

/** The median of `runs` durations that `timed` measures itself. */
async function medianOf(runs: number, timed: (i: number) => Promise<number>): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push(await timed(i));
  return middle(samples);
}

async function median(
  runs: number,
  body: (i: number) => Promise<void> | void,
  setup?: (i: number) => Promise<void> | void,
  teardown?: (i: number) => Promise<void> | void,
): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    await setup?.(i);
    const start = performance.now();
    await body(i);
    samples.push(performance.now() - start);
    await teardown?.(i);
  }
  return middle(samples);
}

/** The middle value; of an even count, the mean of the two middle ones. */
function middle(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[half] ?? Number.NaN)
    : ((sorted[half - 1] ?? Number.NaN) + (sorted[half] ?? Number.NaN)) / 2;
}

function bareRoot(): string {
  const root = join(dir, "bare");
  for (const sub of ["usr", "etc", "proc", "sys", "dev", "tmp", "run"]) mkdirSync(join(root, sub), { recursive: true });
  for (const link of ["bin", "lib", "lib64", "sbin"]) symlinkSync(`usr/${link}`, join(root, link));
  writeFileSync(join(root, "etc/passwd"), "root:x:0:0::/root:/bin/sh\n");
  return root;
}

const root = bareRoot();
const results: [string, number][] = [];
const bare = await median(10, () => {
  execFileSync(
    "systemd-nspawn",
    [
      "--quiet",
      "--register=no",
      "--keep-unit",
      `--directory=${root}`,
      "--bind-ro=/usr",
      "--private-network",
      "--",
      "/bin/true",
    ],
    { stdio: "ignore" },
  );
});
results.push(["bare systemd-nspawn … /bin/true (baseline)", bare]);

const context: RuntimeContext = {
  settings: (await loadSettings(await settingsFile(config))).settings,
  paths: runtimePaths("/unused"),
  warn: () => undefined,
};
const phaseSamples = new Map<string, number[]>();
try {
  results.push([
    "up until exec works (in-process)",
    await median(5, async (i) => {
      await upSandbox(context, { name: `b${i}`, template: "bench", workspace: { directory: workspace }, identity: {} });
      await execInRunning(context, await requireSandbox(context, `b${i}`), ["true"]);
    }),
  ]);
  results.push([
    "up until exec works, nspawn-nix (in-process)",
    await median(
      5,
      async (i) => {
        await upSandbox(context, {
          name: `n${i}`,
          template: "nixbench",
          workspace: { directory: workspace },
          identity: {},
        });
        await execInRunning(context, await requireSandbox(context, `n${i}`), ["true"]);
      },
      undefined,
      (i) => destroySandbox(context, `n${i}`, 1),
    ),
  ]);
  results.push([
    "up -r REPO (git worktree) until exec works",
    await median(
      5,
      async (i) => {
        await upSandbox(context, { name: `g${i}`, template: "bench", workspace: { repo }, identity: {} });
        await execInRunning(context, await requireSandbox(context, `g${i}`), ["git", "status", "--short"]);
      },
      undefined,
      (i) => destroySandbox(context, `g${i}`, 1),
    ),
  ]);
  results.push([
    "exec NAME -- true (in-process)",
    await median(30, async () => void (await execInRunning(context, await requireSandbox(context, "b0"), ["true"]))),
  ]);
  results.push(["down (in-process)", await median(5, (i) => destroySandbox(context, `b${i}`, 1))]);
  // A member started before each (not timed), as the daemon's pool keeper starts them.
  const pooled = findTemplate(context, "pooled");
  results.push([
    "up from a warm pool until exec works (in-process)",
    await median(
      5,
      async (i) => {
        await upSandbox(context, {
          name: `w${i}`,
          template: "pooled",
          workspace: { directory: workspace },
          identity: {},
        });
        await execInRunning(context, await requireSandbox(context, `w${i}`), ["true"]);
      },
      async () => void (await makeMember(context, pooled)),
      (i) => destroySandbox(context, `w${i}`, 1),
    ),
  ]);

  // Where the time of `up` goes (what `up --timings` prints), medians per phase over 5 runs.
  for (let i = 0; i < 5; i++) {
    const clock = new PhaseClock();
    await upSandbox(
      { ...context, clock },
      { name: `p${i}`, template: "bench", workspace: { directory: workspace }, identity: {} },
    );
    await clock.time(
      "exec true",
      async () => void (await execInRunning(context, await requireSandbox(context, `p${i}`), ["true"])),
    );
    const { phases, totalMs } = clock.report();
    for (const { phase, ms } of [...phases, { phase: "total", ms: totalMs }])
      phaseSamples.set(phase, [...(phaseSamples.get(phase) ?? []), ms]);
    await destroySandbox(context, `p${i}`, 1);
  }

  // Root's CLI first: its first up starts the daemon that the user's commands then go to, and
  // keeps the pooled template's pool; started here, outside the timed rows, its pool filled.
  await timedInShell("root", ["up", "warmup", "-t", "bench", "-w", workspace], ["down", "warmup", "-t", "1"]);
  await poolReady(context);
  for (const as of ["root", "user"] as const) {
    const name = (i: number): string => `${as === "root" ? "c" : "u"}${i}`;
    results.push([
      `forage-ctl up, then exec true (CLI, ${as})`,
      await medianOf(5, (i) =>
        timedInShell(as, ["up", name(i), "-t", "bench", "-w", workspace], ["exec", name(i), "--", "true"]),
      ),
    ]);
    results.push([
      `forage-ctl exec NAME -- true (CLI, ${as})`,
      await medianOf(15, () => timedInShell(as, ["exec", name(0), "--", "true"])),
    ]);
    // A sandbox of its own, made, used and removed: the goal is ≤ 2× the exec above (a warm pool's).
    results.push([
      `forage-ctl run -- true (CLI, ${as})`,
      await medianOf(5, () => timedInShell(as, ["run", "-t", "bench", "-w", workspace, "--", "true"])),
    ]);
    // From the daemon's pool: each sample waits (untimed) until the member taken before is replaced.
    results.push([
      `forage-ctl up from a warm pool, then exec true (CLI, ${as})`,
      await medianOf(5, async (i) => {
        await poolReady(context);
        const ms = await timedInShell(
          as,
          ["up", `${name(i)}p`, "-t", "pooled", "-w", workspace],
          ["exec", `${name(i)}p`, "--", "true"],
        );
        await destroySandbox(context, `${name(i)}p`, 1);
        return ms;
      }),
    ]);
    results.push([
      `forage-ctl up from a warm pool (CLI, ${as})`,
      await medianOf(5, async (i) => {
        await poolReady(context);
        const ms = await timedInShell(as, ["up", `${name(i)}q`, "-t", "pooled", "-w", workspace]);
        await destroySandbox(context, `${name(i)}q`, 1);
        return ms;
      }),
    ]);
    results.push([
      `forage-ctl run -- true, from a warm pool (CLI, ${as})`,
      await medianOf(5, async () => {
        await poolReady(context);
        return timedInShell(as, ["run", "-t", "pooled", "-w", workspace, "--", "true"]);
      }),
    ]);
    results.push([`forage-ctl reset (CLI, ${as})`, await medianOf(5, (i) => timedInShell(as, ["reset", name(i)]))]);
    results.push([
      `forage-ctl down (CLI, ${as})`,
      await medianOf(5, (i) => timedInShell(as, ["down", name(i), "-t", "1"])),
    ]);
  }
  results.push(["node startup: forage-ctl --version", await medianOf(10, () => timedInShell("user", ["--version"]))]);
  results.push([
    "node startup: node -e 0",
    await medianOf(10, () => timedArgvInShell("user", [[process.execPath, "-e", "0"]])),
  ]);
} finally {
  // Nothing stays when a step fails: the daemon root's first CLI up started (first: it would start
  // pool members again), every sandbox of this state directory, the directory.
  await cli("daemon", "--stop").catch(() => undefined);
  for (const sandbox of await listMetadata(context.paths).catch(() => []))
    await destroySandbox(context, sandbox.name, 1).catch((error: unknown) =>
      process.stderr.write(`bench: could not remove ${sandbox.name}: ${String(error)}\n`),
    );
  rmSync(dir, { recursive: true, force: true });
}
/** Waits until the daemon's pool of the pooled template has a member ready (the bench's config keeps one). */
async function poolReady(context: RuntimeContext): Promise<void> {
  for (let waited = 0; waited < 60_000; waited += 50) {
    for (const member of await listMetadata(context.paths))
      if (member.pool !== undefined && member.template === "pooled" && member.phase === "ready") return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("bench: the daemon started no pool member within a minute");
}

process.stdout.write("sandbox lifecycle (medians)\n");
// Node loads these certificates at every start, before any of forage-ctl's code: on a 2-core
// machine ~80 ms of each command (node -e 0 took 97–167 ms with them, 29–42 ms without).
if (process.env.NODE_EXTRA_CA_CERTS !== undefined)
  process.stdout.write(
    `  (NODE_EXTRA_CA_CERTS is set: every node start, each forage-ctl row's included, loads ${process.env.NODE_EXTRA_CA_CERTS} first)\n`,
  );
for (const [name, ms] of results)
  process.stdout.write(`  ${name.padEnd(46)} ${ms.toFixed(1).padStart(8)} ms  ×${(ms / bare).toFixed(2)}\n`);
process.stdout.write("phases of up, host root (medians of 5; concurrent phases overlap)\n");
for (const [phase, samples] of phaseSamples)
  process.stdout.write(`  ${phase.padEnd(46)} ${middle(samples).toFixed(1).padStart(8)} ms\n`);

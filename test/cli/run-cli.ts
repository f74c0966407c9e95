import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";

/** The repository root (holds package.json, dist/, examples/). */
export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** The built CLI the package ships (test/global-setup.ts builds dist/ before the tests). */
export const cliPath = join(repoRoot, "dist/bin/main.js");

/** Absolute paths of the shipped examples. */
export const examples = {
  typescript: join(repoRoot, "examples/restricted-claude/forage.config.ts"),
  yaml: join(repoRoot, "examples/multi-agent/forage.yaml"),
  json: join(repoRoot, "examples/mounts-beads/forage.json"),
} as const;

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  /** Extra environment; FORAGE_CONFIG and SUDO_USER are never inherited from the test runner. */
  env?: Record<string, string>;
}

/*
 * Other packages rebuild dist/ while tests run; a CLI started in the middle of a rebuild can see a
 * half-written module and fail to link before any command code runs (so nothing was changed).
 * Only that narrow loader failure is retried; every other outcome is returned as is.
 */
const halfBuiltDist =
  /^(SyntaxError: The requested module '[^']+' does not provide an export|Error \[ERR_MODULE_NOT_FOUND\]: Cannot find module '[^']*\/dist\/)/m;

/** Runs `node dist/bin/main.js ...args` with an argv array (no shell) and never rejects. */
export async function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && key !== "FORAGE_CONFIG" && key !== "SUDO_USER") env[key] = value;
  }
  Object.assign(env, options.env);
  for (let attempt = 1; ; attempt++) {
    const result = await execa(process.execPath, [cliPath, ...args], {
      cwd: options.cwd ?? repoRoot,
      env,
      extendEnv: false,
      reject: false,
      stripFinalNewline: false,
      stdin: "ignore",
    });
    const outcome: CliResult = {
      exitCode: result.exitCode ?? -1,
      stdout: String(result.stdout),
      stderr: String(result.stderr),
    };
    if (attempt >= 4 || !halfBuiltDist.test(outcome.stderr)) return outcome;
    await new Promise((done) => setTimeout(done, 1000));
  }
}

/** A fresh directory under the OS temp dir; remove it with `removeTempDir`. */
export function makeTempDir(prefix = "forage-cli-test-"): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export function removeTempDir(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true });
}

/** Matches the start of a Node stack frame; user errors must never print one. */
export const stackFrame = /^ {4}at /m;

/** Runs the real Nix evaluator (argv arrays only, never a shell) for the round-trip tests. */
import { execFileSync } from "node:child_process";

function run(args: readonly string[]): string {
  try {
    return execFileSync("nix-instantiate", args, {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    const stderr = (error as { stderr?: unknown }).stderr;
    throw new Error(`nix-instantiate ${args[0] ?? ""} failed:\n${String(stderr)}`, { cause: error });
  }
}

/** Evaluates `source` strictly and returns its JSON value as decoded by `JSON.parse`. */
export function evalNixJson(source: string): unknown {
  return JSON.parse(run(["--eval", "--strict", "--json", "-E", source])) as unknown;
}

/** Parses `source` with the real parser; throws with Nix's message when it does not parse. */
export function parseNix(source: string): void {
  run(["--parse", "-E", source]);
}

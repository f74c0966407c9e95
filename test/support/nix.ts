import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The in-repo stand-in for nixpkgs' lib and pkgs (see test/nix/stand-in/README.md). */
export const standInDir = fileURLToPath(new URL("../nix/stand-in", import.meta.url));

/** Repository root, for `modules/` paths in Nix expressions. */
export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
  try {
    return execFileSync(command, args, {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 64 * 1024 * 1024,
      env,
    });
  } catch (error) {
    const stderr = (error as { stderr?: unknown }).stderr;
    throw new Error(`${command} ${args.slice(0, 3).join(" ")} … failed:\n${String(stderr).slice(0, 4000)}`);
  }
}

/**
 * Evaluates a Nix expression strictly; returns its JSON value. Paths it interpolates are copied
 * into the store and derivations it names are instantiated, as when Nix builds.
 */
export function nixEvalJson(expression: string): unknown {
  return JSON.parse(
    run("nix-instantiate", ["--eval", "--strict", "--json", "--read-write-mode", "-E", expression]),
  ) as unknown;
}

/** Parses a Nix file with the real parser (throws with Nix's message on a syntax error). */
export function nixParseFile(path: string): void {
  run("nix-instantiate", ["--parse", path]);
}

/**
 * Builds `attribute` of an expression with the real nix-build and returns its store path.
 * Substituters are switched off: tests never contact a binary cache (no network but loopback).
 */
export function nixBuild(expression: string, attribute?: string, env?: NodeJS.ProcessEnv): string {
  const select = attribute === undefined ? [] : ["-A", attribute];
  return run("nix-build", ["--no-out-link", "--option", "substituters", "", ...select, "-E", expression], env).trim();
}

/**
 * nixBuild without blocking this process: for builds that talk to a server the test itself runs
 * (a synchronous child would stop its event loop).
 */
export async function nixBuildAsync(expression: string, env: NodeJS.ProcessEnv): Promise<string> {
  const { execa } = await import("execa");
  const result = await execa("nix-build", ["--no-out-link", "--option", "substituters", "", "-E", expression], {
    env,
    extendEnv: false,
    reject: false,
    stdin: "ignore",
  });
  if (result.exitCode !== 0) throw new Error(`nix-build failed:\n${String(result.stderr).slice(0, 4000)}`);
  return String(result.stdout).trim();
}

export { quoteNixString as nixString } from "../../generator/emit/nix/index.js";

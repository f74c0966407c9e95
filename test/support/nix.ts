import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The in-repo stand-in for nixpkgs' lib and pkgs (see test/nix/stand-in/README.md). */
export const standInDir = fileURLToPath(new URL("../nix/stand-in", import.meta.url));

/** Repository root, for `modules/` paths in Nix expressions. */
export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

function run(command: string, args: readonly string[]): string {
  try {
    return execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const stderr = (error as { stderr?: unknown }).stderr;
    throw new Error(`${command} ${args.slice(0, 3).join(" ")} … failed:\n${String(stderr).slice(0, 4000)}`);
  }
}

/** Evaluates a Nix expression strictly; returns its JSON value. */
export function nixEvalJson(expression: string): unknown {
  return JSON.parse(run("nix-instantiate", ["--eval", "--strict", "--json", "-E", expression])) as unknown;
}

/** Parses a Nix file with the real parser (throws with Nix's message on a syntax error). */
export function nixParseFile(path: string): void {
  run("nix-instantiate", ["--parse", path]);
}

/**
 * Builds `attribute` of an expression with the real nix-build and returns its store path.
 * Substituters are switched off: tests never contact a binary cache (no network but loopback).
 */
export function nixBuild(expression: string, attribute?: string): string {
  const select = attribute === undefined ? [] : ["-A", attribute];
  return run("nix-build", ["--no-out-link", "--option", "substituters", "", ...select, "-E", expression]).trim();
}

export { quoteNixString as nixString } from "../../generator/emit/nix/index.js";

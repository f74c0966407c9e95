import { isAbsolute, relative, resolve } from "node:path";
import { UserError } from "./errors.js";

/** Sandbox names (ARCHITECTURE.md, "Contracts kept stable"): they become directory names, hostnames and unit names. */
export const sandboxNamePattern = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Throws a message naming the rule when `name` is not a valid sandbox name. */
export function assertSandboxName(name: string): void {
  if (!sandboxNamePattern.test(name)) throw new InvalidNameError(invalidSandboxName(name));
}

/** What is wrong with a name that breaks the sandbox name rule, and the rule (here and in the daemon's request checks). */
export function invalidSandboxName(name: unknown): string {
  return `invalid sandbox name ${JSON.stringify(name)}: use 1-63 characters of a-z, 0-9 and '-', starting with a letter or digit`;
}

/** A name or a path built from one that breaks its rule: a usage error. */
export class InvalidNameError extends UserError {
  override name = "InvalidNameError";
  constructor(message: string) {
    super(message, "usage");
  }
}

/**
 * `base/child`, refusing any result outside `base`: names are validated already, and this is the
 * second fence that keeps a path built from a name under its base directory.
 */
export function pathUnder(base: string, ...parts: string[]): string {
  const path = resolve(base, ...parts);
  const rel = relative(resolve(base), path);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) {
    throw new InvalidNameError(`path ${path} escapes ${base}`);
  }
  return path;
}

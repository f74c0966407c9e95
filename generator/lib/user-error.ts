/**
 * What kind of failure a user error is. The CLI maps each kind to its exit code (ARCHITECTURE.md,
 * "Contracts kept stable"); the daemon sends the kind with the message, so both sides agree.
 */
export const userErrorKinds = [
  "general",
  "not-found",
  "template-not-found",
  "no-slot",
  "container",
  "config",
  "vcs",
  "attach",
  "usage",
] as const;
export type UserErrorKind = (typeof userErrorKinds)[number];

export function isUserErrorKind(value: unknown): value is UserErrorKind {
  return typeof value === "string" && (userErrorKinds as readonly string[]).includes(value);
}

/**
 * A failure the user can act on (bad input, a missing sandbox, a container that would not
 * start): printed without a stack, with the exit code of its kind. Every user-facing error
 * extends this class, so the CLI reports them all in one place; anything else is a bug.
 */
export class UserError extends Error {
  override name = "UserError";
  constructor(
    message: string,
    readonly kind: UserErrorKind = "general",
  ) {
    super(message);
  }

  /** What the CLI prints for it, e.g. `forage-ctl: sandbox "x" does not exist (see forage-ctl ps)`. */
  report(program: string): string {
    return `${program}: ${this.message}\n`;
  }
}

/** What went wrong, in the terms the CLI maps to exit codes (DESIGN.md). */
export type SandboxErrorKind = "general" | "not-found" | "template-not-found" | "no-slot" | "container" | "config" | "usage" | "vcs";

/** A lifecycle failure the user can act on; printed without a stack. */
export class SandboxError extends Error {
  override name = "SandboxError";
  constructor(
    message: string,
    readonly kind: SandboxErrorKind,
  ) {
    super(message);
  }
}

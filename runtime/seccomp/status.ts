import type { RuntimeContext } from "../core/context.js";
import type { SandboxMetadata } from "../state/metadata.js";
import type { Refusals } from "./kernel-refusals.js";
import { allowedBack } from "./sandbox-filter.js";
import { seccompWarning } from "./warning.js";

/** A sandbox's seccomp filter as `status` shows it. */
export interface SeccompStatus {
  /** Groups and syscalls allowed back: the running filter's, else the template's. */
  allowed: string[];
  warning: string | null;
  /** What the filter refused since start, from the kernel's log (a lower bound); null when stopped. */
  refused: Refusals | null;
}

/**
 * The seccomp part of `status`: what the running filter allows back (else the template's), the
 * warning when that is anything, and what the filter refused since start (`refused`: the
 * runtime's answer, Backend.refusals; null when stopped or unknown).
 */
export async function seccompStatus(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  refused: Refusals | null,
): Promise<SeccompStatus> {
  const allowedNow = await allowedBack(context.paths, metadata.name);
  const allowed =
    allowedNow ?? context.settings.templates.find((t) => t.name === metadata.template)?.seccomp.allow ?? [];
  return { allowed, warning: seccompWarning(allowed), refused };
}

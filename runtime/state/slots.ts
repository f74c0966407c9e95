import type { SandboxMetadata } from "./metadata.js";

export const maxSlot = 254;

/** The lowest slot in 1..254 no sandbox holds, or undefined when all are taken. */
export function lowestFreeSlot(sandboxes: readonly SandboxMetadata[]): number | undefined {
  const taken = new Set(sandboxes.map((s) => s.slot));
  for (let slot = 1; slot <= maxSlot; slot++) if (!taken.has(slot)) return slot;
  return undefined;
}

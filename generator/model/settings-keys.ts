import type { z } from "zod";

/**
 * forage.json files templates and agents under their names and keeps the name inside too: a
 * record whose key and name disagree was edited by hand, and the runtime would look it up by one
 * and report it by the other. Used as a zod `superRefine` on such records.
 */
export function keysAreNames(
  record: Record<string, { name: string }>,
  context: z.core.$RefinementCtx<Record<string, { name: string }>>,
): void {
  for (const [key, value] of Object.entries(record)) {
    if (value.name !== key)
      context.addIssue({ code: "custom", path: [key, "name"], message: `must be "${key}", the key it is filed under` });
  }
}

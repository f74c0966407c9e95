import { z } from "zod";
import { allowEntry } from "../../config/schema/allow-entry.js";
import { networkModes } from "../../config/network-modes.js";

/**
 * A name the sandbox may not resolve even when `allow` (or full mode) would let it: an exact
 * host or `*.suffix`, no port. Checked before the allowlist.
 */
export const denyEntry = z
  .string()
  .max(255)
  .regex(/^(\*\.)?([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, {
    error: 'must be a lower-case host name, optionally starting with "*." (e.g. "evil.example", "*.paste.example")',
  });

/**
 * A sandbox's network policy as it stands now: the template's, until `forage-ctl network`
 * changes it. Saved in the sandbox's metadata so a restart (of the sandbox or the daemon) keeps
 * it; its entries are the text the user wrote, parsed into rules when read (policy-rules.ts).
 */
export const networkPolicySchema = z
  .strictObject({
    mode: z.enum(networkModes),
    allow: z.array(allowEntry).max(512),
    deny: z.array(denyEntry).max(512),
    sni: z.boolean(),
    /** Hold a name not in allow and ask the human (restricted mode); absent means off (and in metadata written before it existed). */
    ask: z.boolean().optional(),
    /**
     * Learn mode (`forage-ctl network NAME learn`): the sandbox runs as in full mode, and its DNS
     * filter records every name it resolves (learned-names.ts). Absent when off.
     */
    learn: z.literal(true).exactOptional(),
  })
  .refine((policy) => policy.learn !== true || policy.mode === "full", {
    error: 'learn only applies to mode "full" (it records what a full-mode sandbox resolves)',
  })
  .refine((policy) => policy.ask !== true || policy.mode === "restricted", {
    error: 'ask only applies to mode "restricted" (it asks about names not in allow)',
  });

export type NetworkPolicy = z.infer<typeof networkPolicySchema>;

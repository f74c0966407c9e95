import { z } from "zod";

/**
 * A network allowlist entry: an exact host name or `*.suffix`, optionally `:port`.
 * `*.example.com` matches every name below example.com (not example.com itself).
 */
export const allowEntry = z
  .string()
  .max(260, { error: "must be at most 253 characters of host name plus ':port'" })
  .regex(/^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(:([1-9][0-9]{0,4}))?$/, {
    error:
      "must be a lower-case host name, optionally starting with '*.' and ending with ':PORT' (e.g. \"api.anthropic.com\", \"*.github.com:443\")",
  })
  .refine((entry) => portOf(entry) === undefined || (portOf(entry) ?? 0) <= 65535, {
    error: "port must be between 1 and 65535",
  })
  .refine((entry) => !/^\d+(\.\d+){3}(:\d+)?$/.test(entry), {
    error: "must be a host name, not an IP address (allowlists follow DNS; hard-coded addresses are refused)",
  });

function portOf(entry: string): number | undefined {
  const colon = entry.lastIndexOf(":");
  return colon === -1 ? undefined : Number(entry.slice(colon + 1));
}

/** A list of allow entries (`network.allow`, and the reference's spelling `allowedHosts`). */
export const allowList = z
  .array(allowEntry)
  .max(512, { error: "at most 512 allow entries; use '*.suffix' wildcards to cover many hosts" });

import { z } from "zod";
import { allowEntry } from "../../generator/config/schema/allow-entry.js";
import { networkModes } from "../../generator/config/network-modes.js";
import type { AllowRule, NetworkMode, TemplateModel } from "../../generator/model/model.js";
import { parseAllowEntry } from "../../generator/model/resolve-template.js";

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
 * changes it. Saved in the sandbox's metadata so a restart (of the sandbox or the daemon) keeps it.
 */
export const networkPolicySchema = z.strictObject({
  mode: z.enum(networkModes),
  allow: z.array(allowEntry).max(512),
  deny: z.array(denyEntry).max(512),
  sni: z.boolean(),
});

export type NetworkPolicy = z.infer<typeof networkPolicySchema>;

/** The policy a sandbox of this template starts with. */
export function templatePolicy(template: TemplateModel): NetworkPolicy {
  return { mode: template.network.mode, allow: template.network.allow.map((rule) => rule.entry), deny: [], sni: template.network.sni };
}

/** What a name lookup may do under a policy. */
export type NameVerdict = { allowed: true; /** null: any port; else only these. */ ports: number[] | null } | { allowed: false; rule: string };

/**
 * Decides whether the sandbox may resolve `name` (lower case, no trailing dot): the deny list
 * first, then the mode, then the allowlist. Ports of every matching allow entry are merged; an
 * entry without a port allows all of them.
 *
 * @example nameVerdict({ mode: "restricted", allow: ["*.github.com:443"], deny: [], sni: false }, "api.github.com")
 * // { allowed: true, ports: [443] }
 */
export function nameVerdict(policy: NetworkPolicy, name: string): NameVerdict {
  const denied = policy.deny.find((entry) => matchesHost(parseAllowEntry(entry), name));
  if (denied !== undefined) return { allowed: false, rule: `deny ${denied}` };
  if (policy.mode === "none") return { allowed: false, rule: "mode none" };
  if (policy.mode === "full") return { allowed: true, ports: null };
  const matching = policy.allow.map(parseAllowEntry).filter((rule) => matchesHost(rule, name));
  if (matching.length === 0) return { allowed: false, rule: "not in allow" };
  if (matching.some((rule) => rule.port === null)) return { allowed: true, ports: null };
  return { allowed: true, ports: [...new Set(matching.map((rule) => rule.port ?? 0))].sort((a, b) => a - b) };
}

/** `*.example.com` matches names below example.com, never example.com itself. */
function matchesHost(rule: AllowRule, name: string): boolean {
  return rule.wildcard ? name.endsWith(`.${rule.host}`) : name === rule.host;
}

/** Whether traffic leaves the sandbox through the host at all in this mode. */
export function routesOut(mode: NetworkMode): boolean {
  return mode !== "none";
}

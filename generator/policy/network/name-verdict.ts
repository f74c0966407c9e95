import type { AllowRule } from "../../model/model.js";
import type { PolicyRules } from "./policy-rules.js";

/** What a name lookup may do under a policy. */
export type NameVerdict =
  { allowed: true; /** null: any port; else only these. */ ports: number[] | null } | { allowed: false; rule: string };

/**
 * Decides whether the sandbox may resolve `name` (lower case, no trailing dot): the deny list
 * first, then the mode, then the allowlist. Ports of every matching allow entry are merged; an
 * entry without a port allows all of them.
 *
 * @example nameVerdict(policyRules({ mode: "restricted", allow: ["*.github.com:443"], deny: [], sni: false }), "api.github.com")
 * // { allowed: true, ports: [443] }
 */
export function nameVerdict(policy: PolicyRules, name: string): NameVerdict {
  const denied = deniedBy(policy, name);
  if (denied !== undefined) return { allowed: false, rule: `deny ${denied.entry}` };
  if (policy.mode === "none") return { allowed: false, rule: "mode none" };
  if (policy.mode === "full") return { allowed: true, ports: null };
  const matching = policy.allow.filter((rule) => matchesHost(rule, name));
  if (matching.length === 0) return { allowed: false, rule: "not in allow" };
  if (matching.some((rule) => rule.port === null)) return { allowed: true, ports: null };
  return { allowed: true, ports: [...new Set(matching.map((rule) => rule.port ?? 0))].sort((a, b) => a - b) };
}

/** The first deny entry that names `name`, if any (it wins over the allowlist, in every mode). */
export function deniedBy(policy: PolicyRules, name: string): AllowRule | undefined {
  return policy.deny.find((rule) => matchesHost(rule, name));
}

/** `*.example.com` matches names below example.com, never example.com itself. */
function matchesHost(rule: AllowRule, name: string): boolean {
  return rule.wildcard ? name.endsWith(`.${rule.host}`) : name === rule.host;
}

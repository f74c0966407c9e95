import { deniedBy, nameVerdict, type NameVerdict } from "./name-verdict.js";
import type { PolicyRules } from "./policy-rules.js";

/**
 * What the addresses at the end of a CNAME chain may be reached on: the asked name must be
 * allowed, and every name further down the chain that the allowlist names itself narrows the
 * ports to those of its own entries (the intersection). The sets the addresses go into know
 * addresses, not names: without this, `x.cdn.example` (allowed by `*.cdn.example`, any port)
 * pointed by CNAME at `api.example` (allowed only as `api.example:443`) would open api.example's
 * address on every port. A denied name on the chain refuses it. Names the allowlist does not name narrow nothing: CDNs
 * alias allowed names to hosts of their own, and those must keep working.
 *
 * @example chainVerdict(policyRules({ mode: "restricted", allow: ["*.cdn.example", "api.example:443"], deny: [], sni: false }), ["x.cdn.example", "api.example"])
 * // { allowed: true, ports: [443] }
 */
export function chainVerdict(policy: PolicyRules, chain: readonly string[]): NameVerdict {
  const [asked = "", ...targets] = chain;
  const verdict = nameVerdict(policy, asked);
  if (!verdict.allowed || policy.mode !== "restricted") return verdict;
  let ports = verdict.ports;
  for (const target of targets) {
    // A denied name stays denied when an allowed one aliases it (--deny wins over the allowlist).
    const denied = deniedBy(policy, target);
    if (denied !== undefined) return { allowed: false, rule: `CNAME to ${target}: deny ${denied.entry}` };
    const narrowing = nameVerdict(policy, target);
    if (!narrowing.allowed || narrowing.ports === null) continue;
    const own = narrowing.ports;
    ports = ports === null ? own : ports.filter((port) => own.includes(port));
    if (ports.length === 0)
      return {
        allowed: false,
        rule: `CNAME to ${target} (allowed on port ${own.join(", ")} only) shares no port with ${asked}`,
      };
  }
  return { allowed: true, ports };
}

import { namedRefusalOf } from "./named-refusals.js";
import type { PolicyRules } from "./policy-rules.js";
import type { SandboxLink } from "./sandbox-link.js";

/** A destination one of the sandbox's tables refused, as its denied sets recorded it. */
export interface RefusedDestination {
  address: string;
  /** "tcp", "udp", "icmp", "ipv6-icmp", or a protocol number. */
  protocol: string;
  port: number;
}

/**
 * Names the rule that refused a destination, for its denial record: a host service, the mode, a
 * named refusal, or the allowlist (with the name the address was admitted for, when known).
 *
 * @example refusalReason(restricted, link, { address: "93.184.216.34", protocol: "tcp", port: 22 }, "example.com")
 * // "port 22 not in allow for example.com"
 */
export function refusalReason(
  policy: Pick<PolicyRules, "mode" | "sni">,
  link: Pick<SandboxLink, "hostAddress" | "hostAddress6">,
  destination: RefusedDestination,
  name: string | undefined,
): string {
  if (destination.address === link.hostAddress || destination.address === link.hostAddress6) return "host service";
  if (policy.mode === "none") return "mode none";
  const named = namedRefusalOf(policy, destination);
  if (named !== undefined) return named.rule;
  if (policy.mode === "restricted")
    return name === undefined ? "not in allow" : `port ${destination.port} not in allow for ${name}`;
  return "full: only through the external interface";
}

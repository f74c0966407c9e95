import type { NftMatch, NftRule } from "../../emit/nft/index.js";
import type { PolicyRules } from "./policy-rules.js";

/**
 * A refusal the host-side table states ahead of the allowed sets (an allowed address does not
 * lift it), stated once here for the table's rule and for the denial records that name it.
 */
export interface NamedRefusal {
  /** What a denial record says refused the destination. */
  readonly rule: string;
  /** The table rule's comment. */
  readonly comment: string;
  /** One protocol (`udp dport`), or both with ports (`meta l4proto { tcp, udp } th dport`). */
  readonly protocols: readonly ("tcp" | "udp")[];
  readonly ports: readonly number[];
  readonly applies: (policy: Pick<PolicyRules, "mode" | "sni">) => boolean;
}

/** In table order. */
const namedRefusals: readonly NamedRefusal[] = [
  {
    // QUIC (HTTP/3) would carry names past the gate: refused, so clients fall back to TCP.
    rule: "sni: QUIC (TCP goes through the name gate)",
    comment: "sni: QUIC",
    protocols: ["udp"],
    ports: [80, 443],
    applies: (policy) => policy.mode === "restricted" && policy.sni,
  },
  {
    // DNS and DNS-over-TLS: in restricted mode only the sandbox's own filter answers.
    rule: "DNS or DoT to another resolver",
    comment: "DNS or DoT to another resolver",
    protocols: ["tcp", "udp"],
    ports: [53, 853],
    applies: (policy) => policy.mode === "restricted",
  },
];

/**
 * The rules of the refusals a policy states, each jumping to `refuse`.
 *
 * @example
 * // iifname "ve-f7" udp dport { 80, 443 } jump refuse comment "sni: QUIC"
 * // iifname "ve-f7" meta l4proto { tcp, udp } th dport { 53, 853 } jump refuse comment "DNS or DoT to another resolver"
 */
export function namedRefusalRules(policy: Pick<PolicyRules, "mode" | "sni">, from: NftMatch): NftRule[] {
  return namedRefusals
    .filter((refusal) => refusal.applies(policy))
    .map((refusal) => {
      const [only] = refusal.protocols;
      const ports: NftMatch[] =
        refusal.protocols.length === 1 && only !== undefined
          ? [{ kind: "port", field: `${only} dport`, value: refusal.ports }]
          : [
              { kind: "l4proto", value: refusal.protocols },
              { kind: "port", field: "th dport", value: refusal.ports },
            ];
      return { match: [from, ...ports], verdict: { jump: "refuse" }, comment: refusal.comment };
    });
}

/** The named refusal a policy applies to a destination, if any. */
export function namedRefusalOf(
  policy: Pick<PolicyRules, "mode" | "sni">,
  destination: { protocol: string; port: number },
): NamedRefusal | undefined {
  return namedRefusals.find(
    (refusal) =>
      refusal.applies(policy) &&
      (refusal.protocols as readonly string[]).includes(destination.protocol) &&
      refusal.ports.includes(destination.port),
  );
}

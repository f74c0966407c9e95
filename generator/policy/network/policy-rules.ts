import { parseAllowEntry } from "../../model/allow-rule.js";
import type { AllowRule, NetworkMode, TemplateModel } from "../../model/model.js";
import type { NetworkPolicy } from "./policy-schema.js";

/**
 * A network policy with its entries parsed, once, when it is read: what the verdicts on every
 * DNS question and every gated connection work from (no entry is parsed again per question).
 */
export interface PolicyRules {
  readonly mode: NetworkMode;
  readonly allow: readonly AllowRule[];
  /** Deny entries have no port (the schema refuses one). */
  readonly deny: readonly AllowRule[];
  readonly sni: boolean;
  /** Names not in allow are held and asked about (restricted mode). */
  readonly ask: boolean;
  /** Learn mode: full mode, with every name resolved recorded. */
  readonly learn: boolean;
}

/** Parses a policy's entries (already checked by `networkPolicySchema`). */
export function policyRules(policy: NetworkPolicy): PolicyRules {
  return {
    mode: policy.mode,
    allow: policy.allow.map(parseAllowEntry),
    deny: policy.deny.map(parseAllowEntry),
    sni: policy.sni,
    ask: policy.ask === true,
    learn: policy.learn === true,
  };
}

/** The policy a sandbox of this template starts with, as its metadata records it. */
export function templatePolicy(template: TemplateModel): NetworkPolicy {
  const policy: NetworkPolicy = {
    mode: template.network.mode,
    allow: template.network.allow.map((rule) => rule.entry),
    deny: [],
    sni: template.network.sni,
  };
  // Written only when on: absent is off, and a policy without it reads as it always did.
  return template.network.ask ? { ...policy, ask: true } : policy;
}

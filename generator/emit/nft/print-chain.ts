import type { NftBaseChain, NftChain } from "./ast.js";
import { printRule } from "./print-rule.js";
import { quote } from "./print-values.js";

/**
 * Prints a validated chain, indented one tab inside its table.
 *
 * @example
 * printChain({ name: "output", base: { type: "filter", hook: "output", priority: "filter", policy: "drop" },
 *   rules: [{ match: [{ kind: "iface", field: "oifname", value: "lo" }], verdict: "accept" }] });
 * // 	chain output {
 * // 		type filter hook output priority filter; policy drop;
 * // 		oifname "lo" accept
 * // 	}
 */
export function printChain(chain: NftChain): string {
  const lines = [`\tchain ${chain.name} {`];
  if (chain.comment !== undefined) lines.push(`\t\tcomment ${quote(chain.comment)}`);
  if (chain.base !== undefined) lines.push(`\t\t${printBase(chain.base)}`);
  for (const rule of chain.rules) lines.push(`\t\t${printRule(rule)}`);
  lines.push("\t}");
  return lines.join("\n");
}

/** `type filter hook output priority filter; policy drop;` */
function printBase(base: NftBaseChain): string {
  const policy = base.policy === undefined ? "" : ` policy ${base.policy};`;
  return `type ${base.type} hook ${base.hook} priority ${base.priority};${policy}`;
}

import type { NftSet } from "./ast.js";
import { printElement, quote, seconds } from "./print-values.js";
import { setTypes } from "./validate-set.js";
import { SET_FLAGS } from "./vocabulary.js";

/**
 * Prints a validated set declaration as nft lists it (type, size, flags, timeout, gc-interval,
 * comment, elements), indented one tab inside its table.
 *
 * @example
 * printSet({ name: "allowed4", type: "ipv4_addr", flags: ["timeout"], elements: [{ value: "1.2.3.4", timeout: 60 }] });
 * // 	set allowed4 {
 * // 		type ipv4_addr
 * // 		flags timeout
 * // 		elements = { 1.2.3.4 timeout 60s }
 * // 	}
 */
export function printSet(set: NftSet): string {
  const types = setTypes(set);
  const lines = [`\tset ${set.name} {`, `\t\ttype ${types.join(" . ")}`];
  if (set.size !== undefined) lines.push(`\t\tsize ${set.size}`);
  // Canonical flag order keeps the output independent of the order flags were listed in.
  const flags = SET_FLAGS.filter((flag) => set.flags?.includes(flag));
  if (flags.length > 0) lines.push(`\t\tflags ${flags.join(",")}`);
  if (set.counter === true) lines.push("\t\tcounter");
  if (set.timeout !== undefined) lines.push(`\t\ttimeout ${seconds(set.timeout)}`);
  if (set.gcInterval !== undefined) lines.push(`\t\tgc-interval ${seconds(set.gcInterval)}`);
  if (set.comment !== undefined) lines.push(`\t\tcomment ${quote(set.comment)}`);
  // nft has no syntax for `elements = { }`, so an empty list prints nothing.
  if (set.elements !== undefined && set.elements.length > 0) {
    lines.push(`\t\telements = { ${set.elements.map((element) => printElement(types, element)).join(", ")} }`);
  }
  lines.push("\t}");
  return lines.join("\n");
}

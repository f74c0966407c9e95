import type { NftConcatField, NftL4Proto, NftMatch, NftRule } from "./ast.js";
import { isSetRef } from "./validate-match.js";

/**
 * The layer-4 protocols a rule's matches restrict it to, or undefined when unrestricted.
 * nft only allows `reject with tcp reset` after a tcp match and a NAT port mapping
 * (`dnat ip to 10.0.0.2:80`, `redirect to :8080`) after a tcp/udp match; `th dport` does not count.
 *
 * @example
 * ruleProtocols({ match: [{ kind: "port", field: "tcp dport", value: 22 }], verdict: "drop" }); // Set { "tcp" }
 */
export function ruleProtocols(rule: NftRule): ReadonlySet<NftL4Proto> | undefined {
  let result: Set<NftL4Proto> | undefined;
  for (const match of rule.match) {
    const implied = matchProtocols(match);
    if (implied === undefined) continue;
    const previous = result;
    result = new Set(previous === undefined ? implied : implied.filter((proto) => previous.has(proto)));
  }
  return result;
}

function matchProtocols(match: NftMatch): readonly NftL4Proto[] | undefined {
  if ("op" in match && match.op === "!=") return undefined;
  switch (match.kind) {
    case "l4proto":
      if (isSetRef(match.value)) return undefined;
      return typeof match.value === "string" ? [match.value] : match.value;
    case "port":
      return fieldProtocol(match.field);
    case "concat":
      return match.fields.map(fieldProtocol).find((protos) => protos !== undefined);
    case "icmpType":
      return [match.protocol];
    case "iface":
    case "ctState":
    case "nfproto":
    case "addr":
    case "mark":
      return undefined;
  }
}

function fieldProtocol(field: NftConcatField): readonly NftL4Proto[] | undefined {
  if (field.startsWith("tcp ")) return ["tcp"];
  if (field.startsWith("udp ")) return ["udp"];
  return undefined;
}

import type { NftLog, NftMatch, NftOp, NftPortValue, NftRule, NftSetRef, NftVerdict } from "./ast.js";
import { anonymousSet, hexMark, opPrefix, quote } from "./print-values.js";
import { isSetRef } from "./validate-match.js";

/**
 * Prints a validated rule on one line, in nft's listing order.
 *
 * @example
 * printRule({ match: [{ kind: "l4proto", value: "tcp" }], counter: true,
 *   log: { prefix: "forage-deny f1: ", group: 1 }, verdict: { reject: "tcp-reset" } });
 * // meta l4proto tcp counter log prefix "forage-deny f1: " group 1 reject with tcp reset
 */
export function printRule(rule: NftRule): string {
  const parts = rule.match.map(printMatch);
  if (rule.counter === true) parts.push("counter");
  if (rule.log !== undefined) parts.push(printLog(rule.log));
  if (rule.update !== undefined) parts.push(`update @${rule.update.set} { ${rule.update.key.join(" . ")} }`);
  parts.push(printVerdict(rule.verdict));
  if (rule.comment !== undefined) parts.push(`comment ${quote(rule.comment)}`);
  return parts.join(" ");
}

/** Turns a scalar-or-list into a list. */
function list<T>(value: T | readonly T[]): readonly T[] {
  return Array.isArray(value) ? value : [value as T];
}

/** The right-hand side of a match: `@set`, one value, or an anonymous set, after the operator. */
function operand<T>(op: NftOp | undefined, value: T | readonly T[] | NftSetRef, show: (item: T) => string): string {
  if (isSetRef(value)) return `${opPrefix(op)}@${value.set}`;
  return `${opPrefix(op)}${anonymousSet(list(value as T | readonly T[]).map(show))}`;
}

function printPort(port: NftPortValue): string {
  return typeof port === "number" ? String(port) : `${port.range[0]}-${port.range[1]}`;
}

const asIs = (item: string): string => item;

/** `iifname "ve-f1"`, `ct state { established, related }`, `ip daddr . tcp dport @allowed4_tcp`. */
export function printMatch(match: NftMatch): string {
  switch (match.kind) {
    case "iface":
      return `${match.field} ${operand(match.op, match.value, quote)}`;
    case "ctState":
      return `ct state ${operand(match.op, match.states, asIs)}`;
    case "l4proto":
      return `meta l4proto ${operand(match.op, match.value, asIs)}`;
    case "nfproto":
      return `meta nfproto ${match.value}`;
    case "addr":
      return `${match.field} ${operand(match.op, match.value, asIs)}`;
    case "port":
      return `${match.field} ${operand(match.op, match.value, printPort)}`;
    case "concat":
      return `${match.fields.join(" . ")} ${opPrefix(match.op)}@${match.set}`;
    case "icmpType":
      return `${match.protocol} type ${anonymousSet(match.types)}`;
    case "mark":
      return `meta mark ${operand(match.op, match.value, hexMark)}`;
  }
}

/** `log prefix "forage-deny f1: " group 1`. */
function printLog(log: NftLog): string {
  const group = log.group === undefined ? "" : ` group ${log.group}`;
  const level = log.level === undefined ? "" : ` level ${log.level}`;
  return `log prefix ${quote(log.prefix)}${group}${level}`;
}

const REJECTS = {
  "tcp-reset": "reject with tcp reset",
  // `type` is optional from nft 1.0 on (and listed without it) but required by older releases.
  "admin-prohibited": "reject with icmpx type admin-prohibited",
  "port-unreachable": "reject with icmpx type port-unreachable",
  default: "reject",
} as const;

/** `accept`, `reject with tcp reset`, `jump forage_allow`, `dnat ip6 to [fd00::2]:8080`, … */
export function printVerdict(verdict: NftVerdict): string {
  if (typeof verdict === "string") return verdict;
  if ("reject" in verdict) return REJECTS[verdict.reject];
  if ("jump" in verdict) return `jump ${verdict.jump}`;
  if ("goto" in verdict) return `goto ${verdict.goto}`;
  if ("redirect" in verdict) return `redirect to :${verdict.redirect}`;
  if ("dnat" in verdict) {
    const { family, address, port } = verdict.dnat;
    if (port === undefined) return `dnat ${family} to ${address}`;
    const host = family === "ip6" ? `[${address}]` : address;
    return `dnat ${family} to ${host}:${port}`;
  }
  return "masquerade";
}

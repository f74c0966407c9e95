import type {
  NftAddrMatch,
  NftConcatMatch,
  NftIcmpMatch,
  NftIcmpv6Match,
  NftIfaceMatch,
  NftL4ProtoMatch,
  NftMatch,
  NftPortMatch,
  NftSetRef,
} from "./ast.js";
import { NftValidationError } from "./errors.js";
import { checkLayer3, concatFieldType, lookupSet, type TableContext } from "./table-context.js";
import {
  checkAddress,
  checkIfname,
  checkMark,
  checkNonEmpty,
  checkObject,
  checkOneOf,
  checkPort,
} from "./validate-values.js";
import { CT_STATES, FIELD_TYPES, ICMP_TYPES, ICMPV6_TYPES, L4_PROTOS } from "./vocabulary.js";

const PORT_FIELDS = ["tcp dport", "tcp sport", "udp dport", "udp sport", "th dport", "th sport"] as const;
const KINDS = ["iface", "ctState", "l4proto", "nfproto", "addr", "port", "concat", "icmpType", "mark"];

/** True for `{ set: "name" }`. */
export function isSetRef(value: unknown): value is NftSetRef {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "set" in value;
}

/**
 * Validates one match expression against the table: values, set references and family.
 *
 * @example validateMatch({ kind: "addr", field: "ip daddr", value: { set: "allowed4" } }, ctx, "rules[0].match[0]")
 */
export function validateMatch(match: NftMatch, ctx: TableContext, path: string): void {
  checkObject(path, match, `a match object with kind ${KINDS.join(", ")}`);
  if ("op" in match && match.op !== undefined) checkOneOf(`${path}.op`, match.op, ["==", "!="]);
  switch (match.kind) {
    case "iface":
      return validateIface(match, ctx, path);
    case "ctState":
      checkNonEmpty(`${path}.states`, match.states);
      match.states.forEach((state, i) => checkOneOf(`${path}.states[${i}]`, state, CT_STATES));
      return;
    case "l4proto":
      return validateL4Proto(match, ctx, path);
    case "nfproto":
      if (ctx.family !== "inet") {
        throw new NftValidationError(`${path}.kind`, match.kind, "meta nfproto only in an inet table");
      }
      checkOneOf(`${path}.value`, match.value, ["ipv4", "ipv6"]);
      return;
    case "addr":
      return validateAddr(match, ctx, path);
    case "port":
      return validatePort(match, ctx, path);
    case "concat":
      return validateConcat(match, ctx, path);
    case "icmpType":
      return validateIcmp(match, ctx, path);
    case "mark":
      if (isSetRef(match.value)) lookupSet(ctx, match.value.set, ["mark"], `${path}.value.set`);
      else checkMark(`${path}.value`, match.value);
      return;
    default: {
      // Every kind has its case (a new one fails to compile here); this catches data that is no AST.
      const unknown: never = match;
      throw new NftValidationError(`${path}.kind`, (unknown as { kind: unknown }).kind, `one of ${KINDS.join(", ")}`);
    }
  }
}

/** Applies `check` to a scalar or to each member of a non-empty list. */
function eachValue<T>(value: T | readonly T[], path: string, check: (item: T, at: string) => void): void {
  if (!Array.isArray(value)) {
    check(value as T, path);
    return;
  }
  checkNonEmpty(path, value as readonly T[]).forEach((item, index) => check(item, `${path}[${index}]`));
}

function validateIface(match: NftIfaceMatch, ctx: TableContext, path: string): void {
  checkOneOf(`${path}.field`, match.field, ["iifname", "oifname"]);
  if (isSetRef(match.value)) lookupSet(ctx, match.value.set, ["ifname"], `${path}.value.set`);
  else eachValue(match.value, `${path}.value`, (name, at) => checkIfname(at, name));
}

function validateL4Proto(match: NftL4ProtoMatch, ctx: TableContext, path: string): void {
  if (isSetRef(match.value)) lookupSet(ctx, match.value.set, ["inet_proto"], `${path}.value.set`);
  else eachValue(match.value, `${path}.value`, (proto, at) => checkOneOf(at, proto, L4_PROTOS));
}

function validateAddr(match: NftAddrMatch, ctx: TableContext, path: string): void {
  checkOneOf(`${path}.field`, match.field, ["ip saddr", "ip daddr", "ip6 saddr", "ip6 daddr"]);
  const version = match.field.startsWith("ip6 ") ? 6 : 4;
  checkLayer3(ctx, version, match.field, `${path}.field`);
  if (isSetRef(match.value)) {
    lookupSet(ctx, match.value.set, [FIELD_TYPES[match.field]], `${path}.value.set`);
    return;
  }
  eachValue(match.value, `${path}.value`, (address, at) => {
    checkAddress(at, address, { version, allowPrefix: true });
  });
}

function validatePort(match: NftPortMatch, ctx: TableContext, path: string): void {
  checkOneOf(`${path}.field`, match.field, PORT_FIELDS);
  if (isSetRef(match.value)) {
    lookupSet(ctx, match.value.set, ["inet_service"], `${path}.value.set`);
    return;
  }
  eachValue(match.value, `${path}.value`, (port, at) => {
    if (typeof port === "number") {
      checkPort(at, port);
      return;
    }
    const range: unknown = typeof port === "object" && port !== null ? port.range : undefined;
    if (!Array.isArray(range) || range.length !== 2) {
      throw new NftValidationError(at, port, "a port or { range: [low, high] }");
    }
    const low = checkPort(`${at}.range[0]`, range[0]);
    const high = checkPort(`${at}.range[1]`, range[1]);
    if (low >= high) {
      throw new NftValidationError(`${at}.range`, range, "a range whose low port is below its high port");
    }
  });
}

function validateConcat(match: NftConcatMatch, ctx: TableContext, path: string): void {
  if (!Array.isArray(match.fields) || match.fields.length < 2) {
    throw new NftValidationError(`${path}.fields`, match.fields, "a list of at least two fields");
  }
  const types = match.fields.map((field, index) => concatFieldType(ctx, field, `${path}.fields[${index}]`));
  lookupSet(ctx, match.set, types, `${path}.set`);
}

function validateIcmp(match: NftIcmpMatch | NftIcmpv6Match, ctx: TableContext, path: string): void {
  const protocol = checkOneOf(`${path}.protocol`, match.protocol, ["icmp", "icmpv6"]);
  checkLayer3(ctx, protocol === "icmp" ? 4 : 6, protocol, `${path}.protocol`);
  const allowed: readonly string[] = protocol === "icmp" ? ICMP_TYPES : ICMPV6_TYPES;
  checkNonEmpty(`${path}.types`, match.types);
  match.types.forEach((type: string, index: number) => checkOneOf(`${path}.types[${index}]`, type, allowed));
}

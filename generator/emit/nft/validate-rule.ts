import type { NftDataType, NftDnatTarget, NftLog, NftRule, NftSetUpdate, NftVerdict } from "./ast.js";
import { NftValidationError } from "./errors.js";
import { ruleProtocols } from "./rule-protocols.js";
import { concatFieldType, lookupSet, type TableContext } from "./table-context.js";
import { validateMatch } from "./validate-match.js";
import {
  checkAddress,
  checkIdentifier,
  checkInteger,
  checkObject,
  checkOneOf,
  checkPort,
  checkText,
} from "./validate-values.js";
import { LOG_LEVELS, REJECT_KINDS } from "./vocabulary.js";

const VERDICT_FORMS =
  "accept, drop, return, continue, { reject }, { jump }, { goto }, { redirect }, { dnat }, or { masquerade: true }";

/**
 * Validates a rule: its matches, counter, log statement, verdict and comment.
 *
 * @example validateRule({ match: [], log: { prefix: "deny: ", group: 1 }, verdict: "drop" }, ctx, "chains[0].rules[0]")
 */
export function validateRule(rule: NftRule, ctx: TableContext, path: string): void {
  checkObject(path, rule, "a rule object { match, verdict }");
  if (!Array.isArray(rule.match)) throw new NftValidationError(`${path}.match`, rule.match, "a list of matches");
  rule.match.forEach((match, index) => validateMatch(match, ctx, `${path}.match[${index}]`));
  if (rule.counter !== undefined && typeof rule.counter !== "boolean") {
    throw new NftValidationError(`${path}.counter`, rule.counter, "true or false");
  }
  if (rule.log !== undefined) validateLog(rule.log, `${path}.log`);
  if (rule.update !== undefined) validateSetUpdate(rule.update, ctx, `${path}.update`);
  validateVerdict(rule, ctx, `${path}.verdict`);
  if (rule.comment !== undefined) checkText(`${path}.comment`, rule.comment, 128);
}

/** The key's fields must produce exactly the set's type, and the set must be able to grow. */
function validateSetUpdate(update: NftSetUpdate, ctx: TableContext, path: string): void {
  checkObject(path, update, "an update object { set, key }");
  if (!Array.isArray(update.key) || update.key.length === 0)
    throw new NftValidationError(`${path}.key`, update.key, "a non-empty list of fields");
  const types = update.key.map((part, index): NftDataType => {
    if (typeof part === "number") {
      checkInteger(`${path}.key[${index}]`, part, 0, 65535, "a constant port");
      return "inet_service";
    }
    return concatFieldType(ctx, part, `${path}.key[${index}]`);
  });
  const set = lookupSet(ctx, update.set, types, `${path}.set`);
  if (!(set.flags?.includes("dynamic") ?? false))
    throw new NftValidationError(`${path}.set`, update.set, `a set with flags dynamic (set ${set.name} has none)`);
}

function validateLog(log: NftLog, path: string): void {
  checkText(`${path}.prefix`, log.prefix, 127);
  if (log.group !== undefined) checkInteger(`${path}.group`, log.group, 0, 65535, "an nflog group");
  if (log.level !== undefined) checkOneOf(`${path}.level`, log.level, LOG_LEVELS);
  if (log.group !== undefined && log.level !== undefined) {
    throw new NftValidationError(path, log, "either group (nflog) or level (syslog), not both");
  }
}

function validateVerdict(rule: NftRule, ctx: TableContext, path: string): void {
  const verdict: NftVerdict = rule.verdict;
  if (typeof verdict === "string") {
    checkOneOf(path, verdict, ["accept", "drop", "return", "continue"]);
  } else if (typeof verdict !== "object" || verdict === null) {
    throw new NftValidationError(path, verdict, VERDICT_FORMS);
  } else if ("reject" in verdict) {
    validateReject(rule, verdict.reject, ctx, `${path}.reject`);
  } else if ("jump" in verdict) {
    checkChainTarget(verdict.jump, ctx, `${path}.jump`);
  } else if ("goto" in verdict) {
    checkChainTarget(verdict.goto, ctx, `${path}.goto`);
  } else if ("redirect" in verdict) {
    checkPort(`${path}.redirect`, verdict.redirect);
    checkPortMapping(rule, `${path}.redirect`, verdict.redirect);
  } else if ("dnat" in verdict) {
    validateDnat(rule, verdict.dnat, ctx, `${path}.dnat`);
  } else if (!("masquerade" in verdict) || verdict.masquerade !== true) {
    throw new NftValidationError(path, verdict, VERDICT_FORMS);
  }
}

function validateReject(rule: NftRule, kind: unknown, ctx: TableContext, path: string): void {
  checkOneOf(path, kind, REJECT_KINDS);
  if (kind === "tcp-reset") {
    const protos = ruleProtocols(rule);
    if (protos === undefined || protos.size !== 1 || !protos.has("tcp")) {
      throw new NftValidationError(path, kind, "tcp-reset only in a rule that matches tcp (e.g. meta l4proto tcp)");
    }
  }
  // icmpx is the family-neutral ICMP; ip and ip6 tables only know their own ICMP flavour.
  const icmpx = kind === "admin-prohibited" || kind === "port-unreachable";
  if (icmpx && (ctx.family === "ip" || ctx.family === "ip6")) {
    const expected = `tcp-reset or default in an ${ctx.family} table (icmpx needs inet, bridge or netdev)`;
    throw new NftValidationError(path, kind, expected);
  }
}

/** Jump and goto targets must be regular chains of this table (base chains cannot be jumped to). */
function checkChainTarget(name: unknown, ctx: TableContext, path: string): void {
  checkIdentifier(path, name);
  const chain = ctx.chains.get(name as string);
  if (chain === undefined) {
    const known = [...ctx.chains.keys()].sort().join(", ");
    throw new NftValidationError(path, name, `a chain declared in table ${ctx.tableName} (declared: ${known})`);
  }
  if (chain.base !== undefined) {
    throw new NftValidationError(path, name, "a regular chain; base chains are entered from their hook only");
  }
}

function checkPortMapping(rule: NftRule, path: string, value: unknown): void {
  const protos = ruleProtocols(rule);
  const transport = protos !== undefined && protos.size > 0 && [...protos].every((p) => p === "tcp" || p === "udp");
  if (!transport) {
    const expected = "a port mapping only in a rule that matches tcp or udp (e.g. tcp dport 80)";
    throw new NftValidationError(path, value, expected);
  }
}

function validateDnat(rule: NftRule, target: NftDnatTarget, ctx: TableContext, path: string): void {
  const family = checkOneOf(`${path}.family`, target.family, ["ip", "ip6"]);
  const allowed: readonly string[] =
    ctx.family === "inet" ? ["ip", "ip6"] : ctx.family === "ip" || ctx.family === "ip6" ? [ctx.family] : [];
  if (!allowed.includes(family)) {
    const expected =
      allowed.length === 0
        ? "no dnat here: it needs an ip, ip6 or inet table"
        : `${allowed.join(" or ")} in an ${ctx.family} table`;
    throw new NftValidationError(`${path}.family`, family, expected);
  }
  checkAddress(`${path}.address`, target.address, { version: family === "ip" ? 4 : 6, allowPrefix: false });
  if (target.port !== undefined) {
    checkPort(`${path}.port`, target.port);
    checkPortMapping(rule, `${path}.port`, target.port);
  }
}

import type { NftBaseChain, NftChain, NftFamily, NftTable } from "./ast.js";
import { NftValidationError } from "./errors.js";
import type { TableContext } from "./table-context.js";
import { validateRule } from "./validate-rule.js";
import { validateSet } from "./validate-set.js";
import { checkIdentifier, checkInteger, checkOneOf, checkText } from "./validate-values.js";
import { FAMILIES, HOOKS, PRIORITY_NAMES } from "./vocabulary.js";

/**
 * Validates a whole table: every identifier and value, set and chain references, set element
 * types, family/hook/priority combinations, and jump/goto loops. Throws `NftValidationError`
 * naming the first offending field. `printNftTable` calls this, so printed text is always safe.
 *
 * @example
 * validateNftTable({ family: "inet", name: "a;b", sets: [], chains: [] });
 * // NftValidationError: table.name: "a;b" is not allowed; expected a letter then up to 63 letters, digits or _
 */
export function validateNftTable(table: NftTable, path = "table"): void {
  checkOneOf(`${path}.family`, table.family, FAMILIES);
  checkIdentifier(`${path}.name`, table.name);
  if (table.comment !== undefined) checkText(`${path}.comment`, table.comment, 128);
  const sets = indexByName(table.sets, `${path}.sets`);
  table.sets.forEach((set, index) => validateSet(set, `${path}.sets[${index}]`));
  const chains = indexByName(table.chains, `${path}.chains`);
  const ctx: TableContext = { family: table.family, tableName: table.name, sets, chains };
  table.chains.forEach((chain, index) => validateChain(chain, ctx, `${path}.chains[${index}]`));
  checkNoLoops(table, path);
}

/** Maps names to items, rejecting bad and duplicate names. */
function indexByName<T extends { readonly name: string }>(items: readonly T[], path: string): Map<string, T> {
  if (!Array.isArray(items)) throw new NftValidationError(path, items, "a list");
  const byName = new Map<string, T>();
  items.forEach((item, index) => {
    checkIdentifier(`${path}[${index}].name`, item.name);
    if (byName.has(item.name)) {
      throw new NftValidationError(`${path}[${index}].name`, item.name, "a name not used by another item of this list");
    }
    byName.set(item.name, item);
  });
  return byName;
}

function validateChain(chain: NftChain, ctx: TableContext, path: string): void {
  if (chain.comment !== undefined) checkText(`${path}.comment`, chain.comment, 128);
  if (chain.base !== undefined) validateBase(chain.base, ctx.family, `${path}.base`);
  if (!Array.isArray(chain.rules)) throw new NftValidationError(`${path}.rules`, chain.rules, "a list of rules");
  chain.rules.forEach((rule, index) => validateRule(rule, ctx, `${path}.rules[${index}]`));
}

function validateBase(base: NftBaseChain, family: NftFamily, path: string): void {
  const type = checkOneOf(`${path}.type`, base.type, ["filter", "nat", "route"]);
  const hook = checkOneOf(`${path}.hook`, base.hook, HOOKS);
  if (base.policy !== undefined) checkOneOf(`${path}.policy`, base.policy, ["accept", "drop"]);
  if (family === "netdev") {
    const expected = "a base chain in an inet, ip, ip6 or bridge table (netdev has only ingress/egress)";
    throw new NftValidationError(`${path}.hook`, hook, expected);
  }
  if (type !== "filter" && family === "bridge") {
    throw new NftValidationError(`${path}.type`, type, "filter in a bridge table");
  }
  if (type === "route" && hook !== "output") {
    throw new NftValidationError(`${path}.hook`, hook, "output for a route chain");
  }
  if (typeof base.priority === "number") {
    checkInteger(`${path}.priority`, base.priority, -(2 ** 31), 2 ** 31 - 1, "a priority");
    return;
  }
  const priority = checkOneOf(`${path}.priority`, base.priority, PRIORITY_NAMES);
  // Mirrors nft's standard priority table: dstnat/srcnat exist only on their NAT hooks and
  // bridge tables define only filter, dstnat and srcnat.
  if ((priority === "dstnat" && hook !== "prerouting") || (priority === "srcnat" && hook !== "postrouting")) {
    const expected = `a number or a name valid for hook ${hook} (dstnat: prerouting, srcnat: postrouting)`;
    throw new NftValidationError(`${path}.priority`, priority, expected);
  }
  if (family === "bridge" && !["filter", "dstnat", "srcnat"].includes(priority)) {
    throw new NftValidationError(`${path}.priority`, priority, "a number, filter, dstnat or srcnat in a bridge table");
  }
}

interface Edge {
  readonly target: string;
  readonly path: string;
}

/** nft refuses jump/goto cycles with a bare ELOOP; name the cycle instead. */
function checkNoLoops(table: NftTable, path: string): void {
  const edges = new Map<string, Edge[]>();
  table.chains.forEach((chain, c) => {
    const out: Edge[] = [];
    chain.rules.forEach((rule, r) => {
      const verdict = rule.verdict;
      if (typeof verdict !== "object") return;
      const at = `${path}.chains[${c}].rules[${r}].verdict`;
      if ("jump" in verdict) out.push({ target: verdict.jump, path: `${at}.jump` });
      if ("goto" in verdict) out.push({ target: verdict.goto, path: `${at}.goto` });
    });
    edges.set(chain.name, out);
  });
  const done = new Set<string>();
  const visit = (trail: readonly string[]): void => {
    const current = trail[trail.length - 1] ?? "";
    for (const edge of edges.get(current) ?? []) {
      if (trail.includes(edge.target)) {
        const loop = [...trail.slice(trail.indexOf(edge.target)), edge.target].join(" -> ");
        throw new NftValidationError(edge.path, edge.target, `a chain that does not lead back here (loop ${loop})`);
      }
      if (!done.has(edge.target)) visit([...trail, edge.target]);
    }
    done.add(current);
  };
  for (const chain of table.chains) if (!done.has(chain.name)) visit([chain.name]);
}

import type { NftChain, NftDataType, NftFamily, NftSet } from "./ast.js";
import { NftValidationError } from "./errors.js";
import { checkIdentifier, checkOneOf } from "./validate-values.js";
import { CONCAT_FIELDS, FIELD_TYPES } from "./vocabulary.js";
import { setTypes } from "./validate-set.js";

/** What rule validation needs to know about the enclosing table. */
export interface TableContext {
  readonly family: NftFamily;
  readonly tableName: string;
  readonly sets: ReadonlyMap<string, NftSet>;
  readonly chains: ReadonlyMap<string, NftChain>;
}

/**
 * Resolves `@name` to a set of this table whose type is exactly `expected`; a typo'd or
 * mistyped set would otherwise only fail when nft loads the file.
 */
export function lookupSet(ctx: TableContext, name: unknown, expected: readonly NftDataType[], path: string): NftSet {
  checkIdentifier(path, name);
  const set = ctx.sets.get(name as string);
  if (set === undefined) {
    const known = [...ctx.sets.keys()].sort().join(", ") || "none";
    throw new NftValidationError(path, name, `a set declared in table ${ctx.tableName} (declared: ${known})`);
  }
  const actual = setTypes(set);
  if (actual.length !== expected.length || actual.some((type, index) => type !== expected[index])) {
    throw new NftValidationError(
      path,
      name,
      `a set of type ${expected.join(" . ")}, but set ${set.name} has type ${actual.join(" . ")}`,
    );
  }
  return set;
}

/**
 * Checks one field of a concatenation (a lookup key or a set update key) against the table's
 * family and returns the data type it yields.
 */
export function concatFieldType(ctx: TableContext, field: unknown, path: string): NftDataType {
  const known = checkOneOf(path, field, CONCAT_FIELDS);
  if (known.startsWith("ip ")) checkLayer3(ctx, 4, known, path);
  if (known.startsWith("ip6 ")) checkLayer3(ctx, 6, known, path);
  return FIELD_TYPES[known];
}

/** IPv4-only selectors cannot appear in an ip6 table, nor IPv6-only ones in an ip table. */
export function checkLayer3(ctx: TableContext, version: 4 | 6, value: unknown, path: string): void {
  if ((version === 4 && ctx.family === "ip6") || (version === 6 && ctx.family === "ip")) {
    throw new NftValidationError(
      path,
      value,
      `a selector for the table's family (${ctx.family}); use an inet table to mix IPv4 and IPv6`,
    );
  }
}

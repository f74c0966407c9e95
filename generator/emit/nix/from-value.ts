/**
 * Converts plain JSON-like data into AST. This is how every piece of user data becomes Nix: as
 * literals, never as code (ARCHITECTURE.md rule 3).
 */
import type { NixBinding, NixData, NixExpr } from "./ast.js";
import { markNode } from "./node-brand.js";
import { NixAstError } from "./validate.js";

/**
 * Converts `value` to a Nix expression: strings, safe integers, booleans, null, arrays and plain
 * objects. Object keys are sorted (code-unit order) so output is deterministic, and properties
 * whose value is `undefined` are skipped. Each key is one attribute name, even if it has dots.
 *
 * @example printNix(fromValue({ b: [1, "x"], "a.b": true })) // { "a.b" = true; b = [ 1 "x" ]; }
 * @throws NixAstError for non-integer numbers, `undefined` array items, cycles, and anything
 *   that is not plain data (functions, class instances, Map, Date, bigint, symbol).
 */
export function fromValue(value: NixData): NixExpr {
  return convert(value, "value", new Set());
}

function convert(value: unknown, where: string, stack: Set<object>): NixExpr {
  switch (typeof value) {
    case "string":
      return markNode({ kind: "string", value });
    case "boolean":
      return markNode({ kind: "bool", value });
    case "number":
      if (!Number.isSafeInteger(value)) {
        throw new NixAstError(
          `cannot convert ${where} = ${String(value)} to Nix: only safe integers are supported (no floats, NaN or Infinity)`,
        );
      }
      return markNode({ kind: "int", value });
    case "object":
      if (value === null) return markNode({ kind: "null" });
      return convertContainer(value, where, stack);
    default:
      throw new NixAstError(`cannot convert ${where} (a ${typeof value}) to Nix: not plain data`);
  }
}

function convertContainer(value: object, where: string, stack: Set<object>): NixExpr {
  if (stack.has(value)) {
    throw new NixAstError(`cannot convert ${where} to Nix: it contains a cycle`);
  }
  stack.add(value);
  try {
    return Array.isArray(value) ? convertArray(value, where, stack) : convertObject(value, where, stack);
  } finally {
    stack.delete(value);
  }
}

function convertArray(value: readonly unknown[], where: string, stack: Set<object>): NixExpr {
  const items = value.map((item, index) => {
    const at = `${where}[${index}]`;
    if (item === undefined) {
      throw new NixAstError(`cannot convert ${at} to Nix: undefined is not data`);
    }
    return convert(item, at, stack);
  });
  return markNode({ kind: "list", items });
}

function convertObject(value: object, where: string, stack: Set<object>): NixExpr {
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    throw new NixAstError(`cannot convert ${where} to Nix: only plain objects are data`);
  }
  const record = value as Record<string, unknown>;
  const bindings: NixBinding[] = [];
  // Sorted so the same data always prints the same text, whatever order it was built in.
  for (const key of Object.keys(record).sort()) {
    const item = record[key];
    if (item === undefined) continue;
    const itemValue = convert(item, `${where}[${JSON.stringify(key)}]`, stack);
    bindings.push({ kind: "attr", path: [key], value: itemValue });
  }
  return markNode({ kind: "attrs", bindings });
}

/**
 * Small constructors for the Nix AST. They validate names, paths and numbers when the node is
 * built (so the error points at the caller) and mark nodes as code for the `nix` tag.
 */
import type {
  NixApply,
  NixAttrBinding,
  NixAttrs,
  NixBinaryOperator,
  NixBinding,
  NixBinop,
  NixBool,
  NixExpr,
  NixFormal,
  NixIf,
  NixInheritBinding,
  NixInt,
  NixLambda,
  NixLet,
  NixList,
  NixNot,
  NixNull,
  NixParam,
  NixPath,
  NixSelect,
  NixString,
  NixVar,
} from "./ast.js";
import { fromValue } from "./from-value.js";
import { markNode } from "./node-brand.js";
import {
  assertAttrPath,
  assertFormalNames,
  assertInheritNames,
  assertPathLiteral,
  assertSafeInt,
  assertVarName,
  NixAstError,
} from "./validate.js";

/** Options for attribute sets. */
export interface AttrsOptions {
  /** Print `rec { ... }`. */
  readonly rec?: boolean;
}

/** Options for `n.fn` with formals. */
export interface FnOptions {
  /** Append `...` to the formals. */
  readonly ellipsis?: boolean;
}

/** A record of single attribute names to values; `undefined` values are left out. */
export type NixRecord = Readonly<Record<string, NixExpr | undefined>>;

function recordBindings(record: NixRecord): NixBinding[] {
  const bindings: NixBinding[] = [];
  // Insertion order is kept: callers choose the order they want to read in the output.
  for (const [name, value] of Object.entries(record)) {
    if (value !== undefined) bindings.push({ kind: "attr", path: [name], value });
  }
  return bindings;
}

function attrsNode(bindings: readonly NixBinding[], options: AttrsOptions): NixAttrs {
  const copy = [...bindings];
  return markNode(
    options.rec === true ? { kind: "attrs", bindings: copy, rec: true } : { kind: "attrs", bindings: copy },
  );
}

function isBindingList(value: NixRecord | readonly NixBinding[]): value is readonly NixBinding[] {
  return Array.isArray(value);
}

function makeParam(param: string | readonly (string | NixFormal)[], options: FnOptions): NixParam {
  if (typeof param === "string") {
    if (options.ellipsis !== undefined) {
      throw new NixAstError(`n.fn: "ellipsis" needs formals, not the single parameter ${param}`);
    }
    assertVarName(param, "parameter");
    return { kind: "ident", name: param };
  }
  const formals = param.map((p): NixFormal => (typeof p === "string" ? { name: p } : p));
  assertFormalNames(formals.map((f) => f.name));
  return { kind: "formals", formals, ellipsis: options.ellipsis ?? false };
}

function binop(op: NixBinaryOperator, left: NixExpr, right: NixExpr): NixBinop {
  return markNode({ kind: "binop", op, left, right });
}

/**
 * The AST constructors.
 *
 * @example
 * printNix(n.fn(["config", "lib", "pkgs"], n.attrs({
 *   environment: n.attrs({ systemPackages: n.list([n.sel(n.v("pkgs"), "hello")]) }),
 * }), { ellipsis: true }))
 * // { config, lib, pkgs, ... }:
 * // {
 * //   environment = {
 * //     systemPackages = [ pkgs.hello ];
 * //   };
 * // }
 */
export const n = {
  /** `"value"` (escaped when printed). */
  str: (value: string): NixString => markNode({ kind: "string", value }),
  /** `./x/y.nix` or `../x`; anything else throws. */
  path: (value: string): NixPath => {
    assertPathLiteral(value);
    return markNode({ kind: "path", value });
  },
  /** `42`; non-safe-integers throw. */
  int: (value: number): NixInt => {
    assertSafeInt(value);
    return markNode({ kind: "int", value });
  },
  /** `true` / `false`. */
  bool: (value: boolean): NixBool => markNode({ kind: "bool", value }),
  /** `null`. */
  nul: markNode<NixNull>({ kind: "null" }),
  /** `[ a b ]`. */
  list: (items: readonly NixExpr[]): NixList => markNode({ kind: "list", items: [...items] }),
  /** `{ a = ...; "b.c" = ...; }` from a record: each key is ONE attribute name. */
  attrs: (record: NixRecord, options: AttrsOptions = {}): NixAttrs => attrsNode(recordBindings(record), options),
  /** An attribute set from explicit bindings (dotted paths, inherit, comments). */
  bindings: (bindings: readonly NixBinding[], options: AttrsOptions = {}): NixAttrs => attrsNode(bindings, options),
  /** The binding `path = value;` where a string path is one name and an array is `a.b.c`. */
  attr: (path: string | readonly string[], value: NixExpr, comment?: string): NixAttrBinding => {
    const segments = typeof path === "string" ? [path] : [...path];
    assertAttrPath(segments, "attribute binding");
    return comment === undefined
      ? { kind: "attr", path: segments, value }
      : { kind: "attr", path: segments, value, comment };
  },
  /** `inherit a b;` or `inherit (from) a b;`. */
  inherit: (names: readonly string[], from?: NixExpr): NixInheritBinding => {
    assertInheritNames(names);
    return from === undefined ? { kind: "inherit", names: [...names] } : { kind: "inherit", from, names: [...names] };
  },
  /** A variable: `pkgs`. */
  v: (name: string): NixVar => {
    assertVarName(name);
    return markNode({ kind: "var", name });
  },
  /** `subject.a.b`. */
  sel: (subject: NixExpr, ...path: string[]): NixSelect => {
    assertAttrPath(path, "attribute selection");
    return markNode({ kind: "select", subject, path });
  },
  /** `subject.a.b or orDefault`. */
  selOr: (subject: NixExpr, path: readonly string[], orDefault: NixExpr): NixSelect => {
    assertAttrPath(path, "attribute selection");
    return markNode({ kind: "select", subject, path: [...path], orDefault });
  },
  /** `fn a b`. */
  call: (fn: NixExpr, ...args: NixExpr[]): NixApply => {
    if (args.length === 0) throw new NixAstError("n.call needs at least one argument");
    return markNode({ kind: "apply", fn, args });
  },
  /** `x: body`, or `{ a, b ? d, ... }:` + body when given a list of formals. */
  fn: (param: string | readonly (string | NixFormal)[], body: NixExpr, options: FnOptions = {}): NixLambda =>
    markNode({ kind: "lambda", param: makeParam(param, options), body }),
  /** `let a = ...; in body` from a record or explicit bindings. */
  let: (bindings: NixRecord | readonly NixBinding[], body: NixExpr): NixLet => {
    const list = isBindingList(bindings) ? [...bindings] : recordBindings(bindings);
    return markNode({ kind: "let", bindings: list, body });
  },
  /** Any supported binary operator. */
  op: binop,
  /** `a // b`. */
  update: (a: NixExpr, b: NixExpr): NixBinop => binop("//", a, b),
  /** `a ++ b`. */
  concat: (a: NixExpr, b: NixExpr): NixBinop => binop("++", a, b),
  /** `a == b`. */
  eq: (a: NixExpr, b: NixExpr): NixBinop => binop("==", a, b),
  /** `!x`. */
  not: (operand: NixExpr): NixNot => markNode({ kind: "not", operand }),
  /** `if cond then a else b`. */
  ifThen: (cond: NixExpr, then: NixExpr, otherwise: NixExpr): NixIf =>
    markNode({ kind: "if", cond, then, else: otherwise }),
  /** Plain JSON data as literals; see {@link fromValue}. */
  fromValue,
} as const;

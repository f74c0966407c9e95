/**
 * A typed Nix AST. Generated Nix is built as these nodes and turned into text only by
 * `printNix`, so code and data never mix as strings (ARCHITECTURE.md rules 1 and 3).
 *
 * Build nodes with the `n.*` helpers (build.ts): they validate eagerly and mark nodes so the
 * `nix` tag can tell code from data.
 */

/** A string literal: `"hello"`. Escaping happens in the printer. */
export interface NixString {
  readonly kind: "string";
  readonly value: string;
}

/** A relative path literal: `./modules/x.nix` or `../lib`. */
export interface NixPath {
  readonly kind: "path";
  readonly value: string;
}

/** An integer literal (a JS safe integer): `42`, `-1`. */
export interface NixInt {
  readonly kind: "int";
  readonly value: number;
}

/** `true` / `false`. */
export interface NixBool {
  readonly kind: "bool";
  readonly value: boolean;
}

/** `null`. */
export interface NixNull {
  readonly kind: "null";
}

/** A list: `[ "a" "b" ]`. */
export interface NixList {
  readonly kind: "list";
  readonly items: readonly NixExpr[];
}

/** An attribute set: `{ a = 1; }` or `rec { a = 1; b = a; }`. */
export interface NixAttrs {
  readonly kind: "attrs";
  readonly bindings: readonly NixBinding[];
  readonly rec?: boolean;
}

/** `a.b.c = value;` with an optional `# comment` above it. Each path segment is one name. */
export interface NixAttrBinding {
  readonly kind: "attr";
  readonly path: readonly string[];
  readonly value: NixExpr;
  readonly comment?: string;
}

/** `inherit a b;` or `inherit (from) a b;`. */
export interface NixInheritBinding {
  readonly kind: "inherit";
  readonly from?: NixExpr;
  readonly names: readonly string[];
}

/** A binding inside `{ }`, `rec { }` or `let`. */
export type NixBinding = NixAttrBinding | NixInheritBinding;

/** A variable reference: `pkgs`. */
export interface NixVar {
  readonly kind: "var";
  readonly name: string;
}

/** Attribute selection: `pkgs.python3Packages.black`, or `a.b or default`. */
export interface NixSelect {
  readonly kind: "select";
  readonly subject: NixExpr;
  readonly path: readonly string[];
  readonly orDefault?: NixExpr;
}

/** Function application: `lib.mkIf cond value`. */
export interface NixApply {
  readonly kind: "apply";
  readonly fn: NixExpr;
  readonly args: readonly NixExpr[];
}

/** One formal parameter: `name` or `name ? default`. */
export interface NixFormal {
  readonly name: string;
  readonly default?: NixExpr;
}

/** A lambda parameter: `x:` or `{ a, b ? 1, ... }:`. */
export type NixParam =
  | { readonly kind: "ident"; readonly name: string }
  | {
      readonly kind: "formals";
      readonly formals: readonly NixFormal[];
      readonly ellipsis: boolean;
    };

/** A function: `x: body` or `{ config, lib, pkgs, ... }:\nbody`. */
export interface NixLambda {
  readonly kind: "lambda";
  readonly param: NixParam;
  readonly body: NixExpr;
}

/** `let bindings in body`. */
export interface NixLet {
  readonly kind: "let";
  readonly bindings: readonly NixBinding[];
  readonly body: NixExpr;
}

/** The binary operators generated code needs. */
export type NixBinaryOperator = "//" | "++" | "+" | "==" | "!=" | "&&" | "||";

/** A binary operation: `a // b`. */
export interface NixBinop {
  readonly kind: "binop";
  readonly op: NixBinaryOperator;
  readonly left: NixExpr;
  readonly right: NixExpr;
}

/** Boolean negation: `!x`. */
export interface NixNot {
  readonly kind: "not";
  readonly operand: NixExpr;
}

/** `if cond then a else b`. */
export interface NixIf {
  readonly kind: "if";
  readonly cond: NixExpr;
  readonly then: NixExpr;
  readonly else: NixExpr;
}

/**
 * The escape hatch: verbatim Nix source with AST holes. Only the `nix` tagged template creates
 * it (the printer refuses any other), so its text always comes from a literal in our source.
 */
export interface NixRaw {
  readonly kind: "raw";
  readonly parts: readonly (string | NixExpr)[];
}

/** Any Nix expression. `with` is deliberately absent: it hides where names come from. */
export type NixExpr =
  | NixString
  | NixPath
  | NixInt
  | NixBool
  | NixNull
  | NixList
  | NixAttrs
  | NixVar
  | NixSelect
  | NixApply
  | NixLambda
  | NixLet
  | NixBinop
  | NixNot
  | NixIf
  | NixRaw;

/** Plain JSON-like data that `fromValue` (and data holes of the `nix` tag) accept. */
export type NixData =
  string | number | boolean | null | readonly NixData[] | { readonly [key: string]: NixData | undefined };

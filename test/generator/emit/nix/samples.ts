/**
 * One table of printer samples, shared by the exact-output tests (print.test.ts) and the real
 * parser check (real-nix.test.ts), so every sample whose text is pinned is also proven to parse.
 */
import { n, nix, type NixExpr } from "../../../../generator/emit/nix/index.js";

export interface PrintSample {
  /** A sentence: what the printer does with this node. */
  readonly name: string;
  readonly expr: NixExpr;
  readonly text: string;
}

/** Free variables the samples use; the parse check binds them so `--parse` accepts them. */
export const FREE_VARIABLES = ["a", "b", "c", "cfg", "config", "f", "g", "lib", "pkgs", "x", "y"];

const pkgs = n.v("pkgs");
const lib = n.v("lib");
const fx = n.call(n.v("f"), n.v("x"));

const scalars: PrintSample[] = [
  { name: "a string prints as a double-quoted literal", expr: n.str("hello"), text: '"hello"' },
  {
    name: "a string escapes backslash, quote, dollar, LF, CR and TAB",
    expr: n.str('a"b\\c${d}\n\r\t'),
    text: '"a\\"b\\\\c\\${d}\\n\\r\\t"',
  },
  { name: "a relative path prints verbatim", expr: n.path("./modules/x.nix"), text: "./modules/x.nix" },
  { name: "a parent-relative path prints verbatim", expr: n.path("../lib"), text: "../lib" },
  { name: "an int prints in decimal", expr: n.int(42), text: "42" },
  { name: "a negative int prints with a minus sign", expr: n.int(-7), text: "-7" },
  { name: "true prints as true", expr: n.bool(true), text: "true" },
  { name: "false prints as false", expr: n.bool(false), text: "false" },
  { name: "null prints as null", expr: n.nul, text: "null" },
  { name: "a variable prints as its name", expr: pkgs, text: "pkgs" },
];

const lists: PrintSample[] = [
  { name: "an empty list prints as [ ]", expr: n.list([]), text: "[ ]" },
  {
    name: "a list of up to four scalars prints on one line",
    expr: n.list([n.str("a"), n.int(1), n.bool(true), n.nul]),
    text: '[ "a" 1 true null ]',
  },
  {
    name: "a list of five scalars prints one item per line",
    expr: n.list([1, 2, 3, 4, 5].map(n.int)),
    text: "[\n  1\n  2\n  3\n  4\n  5\n]",
  },
  {
    name: "a list parenthesises a function application item",
    expr: n.list([n.sel(pkgs, "hello"), n.call(n.sel(pkgs, "callPackage"), n.path("./p.nix"), n.attrs({}))]),
    text: "[\n  pkgs.hello\n  (pkgs.callPackage ./p.nix { })\n]",
  },
  { name: "a list parenthesises a negative int", expr: n.list([n.int(-1)]), text: "[ (-1) ]" },
  {
    name: "a list parenthesises operators, lambdas and conditionals",
    expr: n.list([n.update(n.v("a"), n.v("b")), n.fn("x", n.v("x")), n.ifThen(n.v("a"), n.v("b"), n.v("c"))]),
    text: "[\n  (a // b)\n  (x: x)\n  (if a then b else c)\n]",
  },
  {
    name: "a list parenthesises a select with a default",
    expr: n.list([n.selOr(n.v("a"), ["b"], n.int(1))]),
    text: "[\n  (a.b or 1)\n]",
  },
];

const attrs: PrintSample[] = [
  { name: "an empty attribute set prints as { }", expr: n.attrs({}), text: "{ }" },
  { name: "an empty recursive set prints as rec { }", expr: n.attrs({}, { rec: true }), text: "rec { }" },
  {
    name: "an attribute set prints one binding per line in insertion order",
    expr: n.bindings([n.attr("z", n.int(1)), n.attr(["b", "c"], n.str("x"))]),
    text: '{\n  z = 1;\n  b.c = "x";\n}',
  },
  {
    name: "keywords and odd attribute names are quoted",
    expr: n.attrs({
      in: n.int(1),
      "a.b": n.int(2),
      "x y": n.int(3),
      "": n.int(4),
      "${k}": n.int(5),
      "it's-ok_1": n.int(6),
    }),
    text: '{\n  "in" = 1;\n  "a.b" = 2;\n  "x y" = 3;\n  "" = 4;\n  "\\${k}" = 5;\n  it\'s-ok_1 = 6;\n}',
  },
  {
    name: "a recursive set prints rec before the brace",
    expr: n.attrs({ a: n.int(1), b: n.v("a") }, { rec: true }),
    text: "rec {\n  a = 1;\n  b = a;\n}",
  },
  {
    name: "nested sets indent by two spaces",
    expr: n.attrs({ services: n.attrs({ x: n.attrs({ enable: n.bool(true) }) }) }),
    text: "{\n  services = {\n    x = {\n      enable = true;\n    };\n  };\n}",
  },
  {
    name: "inherit prints plain and from a parenthesised source",
    expr: n.bindings([n.inherit(["lib"]), n.inherit(["hello", "jq"], pkgs)]),
    text: "{\n  inherit lib;\n  inherit (pkgs) hello jq;\n}",
  },
  {
    name: "a binding comment prints as one # line per comment line",
    expr: n.bindings([n.attr("a", n.int(1), "first line\n\nthird\r\nfourth\rfifth")]),
    text: "{\n  # first line\n  #\n  # third\n  # fourth\n  # fifth\n  a = 1;\n}",
  },
];

const selects: PrintSample[] = [
  {
    name: "a select joins the path with dots",
    expr: n.sel(pkgs, "python3Packages", "black"),
    text: "pkgs.python3Packages.black",
  },
  { name: "a select quotes odd segments", expr: n.sel(pkgs, "a b", "or"), text: 'pkgs."a b"."or"' },
  { name: "a select on a select chains", expr: n.sel(n.sel(pkgs, "a"), "b"), text: "pkgs.a.b" },
  { name: "a select with a default prints or", expr: n.selOr(n.v("a"), ["b", "c"], n.str("d")), text: 'a.b.c or "d"' },
  { name: "a select parenthesises an application subject", expr: n.sel(fx, "y"), text: "(f x).y" },
  { name: "a select parenthesises an int subject", expr: n.sel(n.int(1), "a"), text: "(1).a" },
  { name: "a select parenthesises a path subject", expr: n.sel(n.path("./x.nix"), "a"), text: "(./x.nix).a" },
  {
    name: "a select parenthesises a subject that has a default",
    expr: n.sel(n.selOr(n.v("a"), ["b"], n.attrs({})), "c"),
    text: "(a.b or { }).c",
  },
  { name: "a select parenthesises a non-atomic default", expr: n.selOr(n.v("a"), ["b"], fx), text: "a.b or (f x)" },
];

const functions: PrintSample[] = [
  {
    name: "an application separates arguments with spaces",
    expr: n.call(n.v("f"), n.v("x"), n.str("y")),
    text: 'f x "y"',
  },
  {
    name: "an application parenthesises non-atomic arguments",
    expr: n.call(n.v("f"), fx, n.int(-1)),
    text: "f (f x) (-1)",
  },
  { name: "a curried application flattens", expr: n.call(fx, n.v("y")), text: "f x y" },
  {
    name: "an application parenthesises a lambda function",
    expr: n.call(n.fn("x", n.v("x")), n.int(1)),
    text: "(x: x) 1",
  },
  {
    name: "an application keeps a set argument on the same line",
    expr: n.call(n.sel(lib, "mkIf"), n.sel(n.v("cfg"), "enable"), n.attrs({ a: n.int(1) })),
    text: "lib.mkIf cfg.enable {\n  a = 1;\n}",
  },
  { name: "a lambda with one parameter prints x: body", expr: n.fn("x", n.v("x")), text: "x: x" },
  {
    name: "a lambda with formals prints them and the body on the next line",
    expr: n.fn(["config", "lib", "pkgs"], n.attrs({}), { ellipsis: true }),
    text: "{ config, lib, pkgs, ... }:\n{ }",
  },
  {
    name: "a lambda prints formal defaults with a question mark",
    expr: n.fn([{ name: "secretsDir", default: n.str("/run/secrets") }], n.v("secretsDir")),
    text: '{ secretsDir ? "/run/secrets" }:\nsecretsDir',
  },
  { name: "a lambda with no formals prints { }:", expr: n.fn([], n.nul), text: "{ }:\nnull" },
  {
    name: "a lambda with only an ellipsis prints { ... }:",
    expr: n.fn([], n.nul, { ellipsis: true }),
    text: "{ ... }:\nnull",
  },
  { name: "a let without bindings prints let in", expr: n.let({}, n.int(1)), text: "let in 1" },
  {
    name: "a let prints bindings, then in, then the body",
    expr: n.let({ a: n.int(1), b: n.list([]) }, n.v("a")),
    text: "let\n  a = 1;\n  b = [ ];\nin\na",
  },
];

const operators: PrintSample[] = [
  { name: "an update prints //", expr: n.update(n.v("a"), n.attrs({})), text: "a // { }" },
  {
    name: "a concatenation parenthesises an application operand",
    expr: n.concat(fx, n.list([n.v("y")])),
    text: "(f x) ++ [\n  y\n]",
  },
  {
    name: "nested operators are parenthesised",
    expr: n.update(n.update(n.v("a"), n.v("b")), n.v("c")),
    text: "(a // b) // c",
  },
  {
    name: "every supported operator prints",
    expr: n.op("||", n.op("&&", n.v("a"), n.v("b")), n.op("!=", n.op("+", n.int(1), n.int(2)), n.int(3))),
    text: "(a && b) || ((1 + 2) != 3)",
  },
  { name: "equality prints ==", expr: n.eq(n.v("a"), n.str("b")), text: 'a == "b"' },
  { name: "a negation of a variable prints !x", expr: n.not(n.v("x")), text: "!x" },
  { name: "a negation parenthesises an application", expr: n.not(fx), text: "!(f x)" },
  {
    name: "a short conditional prints on one line",
    expr: n.ifThen(n.v("a"), n.int(1), n.int(2)),
    text: "if a then 1 else 2",
  },
  {
    name: "a conditional with a multi-line branch prints on several lines",
    expr: n.ifThen(n.v("a"), n.attrs({ b: n.int(1) }), n.attrs({})),
    text: "if a then\n  {\n    b = 1;\n  }\nelse\n  { }",
  },
  {
    name: "a raw node splices code holes and quotes data holes",
    expr: nix`${n.sel(lib, "mkIf")} ${n.sel(n.v("cfg"), "enable")} ${"x"}`,
    text: 'lib.mkIf cfg.enable "x"',
  },
  { name: "a raw node parenthesises a non-atomic hole", expr: nix`${fx}.y`, text: "(f x).y" },
];

/** Every pinned printer sample. */
export const SAMPLES: readonly PrintSample[] = [...scalars, ...lists, ...attrs, ...selects, ...functions, ...operators];

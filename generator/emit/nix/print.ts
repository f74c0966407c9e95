/**
 * The one Nix printer: AST in, deterministic nixpkgs-like text out (2-space indentation).
 *
 * Every function takes the indentation of the line the expression starts on and returns text
 * whose first line carries no indentation and whose later lines are fully indented.
 */
import type {
  NixApply,
  NixAttrs,
  NixBinding,
  NixExpr,
  NixIf,
  NixLambda,
  NixLet,
  NixList,
  NixRaw,
  NixSelect,
} from "./ast.js";
import { formatAttrName, quoteNixString } from "./escape.js";
import { isMarkedNode } from "./node-brand.js";
import {
  assertAttrPath,
  assertFormalNames,
  assertInheritNames,
  assertPathLiteral,
  assertSafeInt,
  assertVarName,
  NixAstError,
} from "./validate.js";

const STEP = "  ";
const MAX_ONE_LINE_IF = 80;
const MAX_ONE_LINE_LIST = 4;
const OPERATORS: ReadonlySet<string> = new Set(["//", "++", "+", "==", "!=", "&&", "||"]);

/**
 * Prints `expr` as Nix source. Attribute order is kept as given; operands that are not atoms are
 * parenthesised (correctness over minimal parentheses).
 *
 * @example
 * printNix(n.attrs({ a: n.int(1), b: n.list([n.str("x"), n.call(n.v("f"), n.v("y"))]) }))
 * // {
 * //   a = 1;
 * //   b = [
 * //     "x"
 * //     (f y)
 * //   ];
 * // }
 * @throws NixAstError for an invalid tree; NixEscapeError for strings Nix cannot hold.
 */
export function printNix(expr: NixExpr): string {
  return printExpr(expr, "");
}

function printExpr(expr: NixExpr, indent: string): string {
  switch (expr.kind) {
    case "string":
      return quoteNixString(expr.value);
    case "path":
      assertPathLiteral(expr.value);
      return expr.value;
    case "int":
      assertSafeInt(expr.value);
      return String(expr.value);
    case "bool":
      return expr.value ? "true" : "false";
    case "null":
      return "null";
    case "var":
      assertVarName(expr.name);
      return expr.name;
    case "list":
      return printList(expr, indent);
    case "attrs":
      return printAttrs(expr, indent);
    case "select":
      return printSelect(expr, indent);
    case "apply":
      return printApply(expr, indent);
    case "lambda":
      return printLambda(expr, indent);
    case "let":
      return printLet(expr, indent);
    case "binop":
      // Checked at run time too: the operator is printed verbatim.
      if (!OPERATORS.has(expr.op)) {
        throw new NixAstError(`unsupported Nix operator ${JSON.stringify(expr.op)}`);
      }
      return `${operand(expr.left, indent)} ${expr.op} ${operand(expr.right, indent)}`;
    case "not":
      return `!${operand(expr.operand, indent)}`;
    case "if":
      return printIf(expr, indent);
    case "raw":
      return printRaw(expr, indent);
    default: {
      // Every kind has its case (a new one fails to compile here); this catches data that is no AST.
      const unknown: never = expr;
      throw new NixAstError(`unknown Nix AST node kind ${JSON.stringify((unknown as { kind?: unknown }).kind)}`);
    }
  }
}

/**
 * Atoms can stand as a list item, function argument or operand without parentheses. A negative
 * int is not one: `f -1` is subtraction and `[ -1 ]` is a syntax error.
 */
function isAtom(expr: NixExpr): boolean {
  switch (expr.kind) {
    case "string":
    case "path":
    case "bool":
    case "null":
    case "list":
    case "attrs":
    case "var":
      return true;
    case "int":
      return expr.value >= 0;
    case "select":
      return expr.orDefault === undefined;
    case "apply":
    case "lambda":
    case "let":
    case "binop":
    case "not":
    case "if":
    case "raw":
      return false;
  }
}

function operand(expr: NixExpr, indent: string): string {
  const text = printExpr(expr, indent);
  return isAtom(expr) ? text : `(${text})`;
}

function isScalar(expr: NixExpr): boolean {
  return ["string", "path", "int", "bool", "null"].includes(expr.kind);
}

function printList(list: NixList, indent: string): string {
  if (list.items.length === 0) return "[ ]";
  if (list.items.length <= MAX_ONE_LINE_LIST && list.items.every(isScalar)) {
    return `[ ${list.items.map((item) => operand(item, indent)).join(" ")} ]`;
  }
  const inner = indent + STEP;
  const lines = list.items.map((item) => inner + operand(item, inner));
  return `[\n${lines.join("\n")}\n${indent}]`;
}

function printAttrs(attrs: NixAttrs, indent: string): string {
  const open = attrs.rec === true ? "rec {" : "{";
  if (attrs.bindings.length === 0) return `${open} }`;
  return `${open}\n${printBindings(attrs.bindings, indent + STEP)}\n${indent}}`;
}

function printBindings(bindings: readonly NixBinding[], inner: string): string {
  return bindings.map((binding) => printBinding(binding, inner)).join("\n");
}

function printBinding(binding: NixBinding, inner: string): string {
  if (binding.kind === "inherit") {
    assertInheritNames(binding.names);
    const from = binding.from === undefined ? "" : ` (${printExpr(binding.from, inner)})`;
    return `${inner}inherit${from} ${binding.names.join(" ")};`;
  }
  assertAttrPath(binding.path, "attribute binding");
  const path = binding.path.map(formatAttrName).join(".");
  const comment = binding.comment === undefined ? "" : printComment(binding.comment, inner);
  return `${comment}${inner}${path} = ${printExpr(binding.value, inner)};`;
}

/**
 * `# line` per comment line. Splits on CR too: Nix ends a `#` comment at CR, so a raw CR would
 * turn the rest of the line into code.
 */
function printComment(comment: string, inner: string): string {
  if (comment.includes("\0")) throw new NixAstError("a Nix comment cannot contain NUL (\\0)");
  return comment
    .split(/\r\n|\r|\n/)
    .map((line) => (line === "" ? `${inner}#\n` : `${inner}# ${line}\n`))
    .join("");
}

function printSelect(select: NixSelect, indent: string): string {
  assertAttrPath(select.path, "attribute selection");
  const subject = select.subject;
  // `1.a` and `./x.a` would lex as a float and a longer path, so those subjects need parentheses.
  const bare = isAtom(subject) && subject.kind !== "int" && subject.kind !== "path";
  const subjectText = bare ? printExpr(subject, indent) : `(${printExpr(subject, indent)})`;
  const text = `${subjectText}.${select.path.map(formatAttrName).join(".")}`;
  return select.orDefault === undefined ? text : `${text} or ${operand(select.orDefault, indent)}`;
}

function printApply(apply: NixApply, indent: string): string {
  if (apply.args.length === 0) {
    throw new NixAstError("a Nix function application needs at least one argument");
  }
  // Application is left-associative, so `(f a) b` prints as `f a b`.
  const fn = apply.fn.kind === "apply" ? printExpr(apply.fn, indent) : operand(apply.fn, indent);
  return [fn, ...apply.args.map((arg) => operand(arg, indent))].join(" ");
}

function printLambda(lambda: NixLambda, indent: string): string {
  const param = lambda.param;
  if (param.kind === "ident") {
    assertVarName(param.name, "parameter");
    return `${param.name}: ${printExpr(lambda.body, indent)}`;
  }
  assertFormalNames(param.formals.map((formal) => formal.name));
  const formals = param.formals.map((formal) =>
    formal.default === undefined ? formal.name : `${formal.name} ? ${operand(formal.default, indent)}`,
  );
  if (param.ellipsis) formals.push("...");
  const head = formals.length === 0 ? "{ }:" : `{ ${formals.join(", ")} }:`;
  return `${head}\n${indent}${printExpr(lambda.body, indent)}`;
}

function printLet(letExpr: NixLet, indent: string): string {
  const body = printExpr(letExpr.body, indent);
  if (letExpr.bindings.length === 0) return `let in ${body}`;
  return `let\n${printBindings(letExpr.bindings, indent + STEP)}\n${indent}in\n${indent}${body}`;
}

function printIf(ifExpr: NixIf, indent: string): string {
  const cond = printExpr(ifExpr.cond, indent);
  const thenLine = printExpr(ifExpr.then, indent);
  const oneLine = `if ${cond} then ${thenLine} else ${printExpr(ifExpr.else, indent)}`;
  if (!oneLine.includes("\n") && indent.length + oneLine.length <= MAX_ONE_LINE_IF) return oneLine;
  const inner = indent + STEP;
  const thenText = printExpr(ifExpr.then, inner);
  const elseText = printExpr(ifExpr.else, inner);
  return `if ${cond} then\n${inner}${thenText}\n${indent}else\n${inner}${elseText}`;
}

function printRaw(raw: NixRaw, indent: string): string {
  // Raw text is code; only the `nix` tag (which takes it from template literals) may make it.
  if (!isMarkedNode(raw)) {
    throw new NixAstError("a raw Nix node must be built with the nix`...` tag");
  }
  const texts = raw.parts.map((part) => (typeof part === "string" ? part : operand(part, indent)));
  return texts.join("");
}

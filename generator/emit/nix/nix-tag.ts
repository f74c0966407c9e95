/**
 * The only way to write Nix source text by hand (ARCHITECTURE.md rule 3): a tagged template whose
 * literal text is code and whose holes are AST nodes (code) or plain data (literals).
 */
import type { NixData, NixExpr, NixRaw } from "./ast.js";
import { fromValue } from "./from-value.js";
import { isMarkedNode, markNode } from "./node-brand.js";
import { NixAstError } from "./validate.js";

const NODE_KINDS: ReadonlySet<string> = new Set([
  "string",
  "path",
  "int",
  "bool",
  "null",
  "list",
  "attrs",
  "var",
  "select",
  "apply",
  "lambda",
  "let",
  "binop",
  "not",
  "if",
  "raw",
]);

/** A hole of the `nix` tag: an AST node (spliced as code) or plain data (a literal). */
export type NixHole = NixExpr | NixData;

/**
 * Builds a `raw` node from a template literal. The literal text is Nix source, taken verbatim
 * (JS escapes are not interpreted, like `String.raw`, so Nix escapes reach Nix untouched).
 * A hole built with `n.*` is code; a JS string, number, boolean, null, array or plain object is
 * data and is converted by `fromValue`, so it can only ever become a literal.
 *
 * Holes are whole expressions; the printer parenthesises them where needed. Do not put a hole
 * inside a Nix string literal in the template: build the string with `n.str` instead.
 *
 * @example nix`lib.mkIf ${n.sel(n.v("cfg"), "enable")} ${"hello"}` // lib.mkIf cfg.enable "hello"
 * @throws NixAstError when called other than as a tag, or for an unbuilt object that looks like
 *   an AST node (wrap real data in `n.fromValue(...)` to say it is data).
 */
export function nix(strings: TemplateStringsArray, ...holes: readonly NixHole[]): NixRaw {
  // Template objects are frozen by the language; a hand-made array (possibly holding user
  // input) is not, so this keeps raw text coming from literals in our source only.
  if (!Object.isFrozen(strings) || !Object.isFrozen(strings.raw)) {
    throw new NixAstError("nix`...` must be used as a tagged template, not called with an array");
  }
  const parts: (string | NixExpr)[] = [];
  strings.raw.forEach((text, index) => {
    if (text !== "") parts.push(text);
    if (index < holes.length) parts.push(holeToExpr(holes[index] as NixHole, index));
  });
  return markNode({ kind: "raw", parts });
}

function holeToExpr(hole: NixHole, index: number): NixExpr {
  if (isMarkedNode(hole)) return hole;
  if (typeof hole === "object" && hole !== null && !Array.isArray(hole)) {
    const kind = (hole as { kind?: unknown }).kind;
    // Ambiguous: refuse rather than guess, since guessing "code" would be an injection.
    if (typeof kind === "string" && NODE_KINDS.has(kind)) {
      throw new NixAstError(
        `nix\`...\` hole ${index} looks like a Nix AST node (kind "${kind}") but was not built ` +
          "with n.*; build it with n.* for code, or pass n.fromValue(data) for data",
      );
    }
  }
  return fromValue(hole as NixData);
}

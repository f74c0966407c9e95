/**
 * The one Nix string escaper (ARCHITECTURE.md rule 2). Everything that turns a JS string into Nix source
 * text (string literals, attribute names) goes through this file.
 */

/** Thrown when a JS string cannot be represented as a Nix string literal. */
export class NixEscapeError extends Error {
  override readonly name = "NixEscapeError";
}

/**
 * Nix keywords that cannot be bare attribute names or variables. `or` is only a soft keyword in
 * Nix 2.8, but quoting it keeps the output valid for every Nix version.
 */
export const NIX_KEYWORDS: ReadonlySet<string> = new Set([
  "if",
  "then",
  "else",
  "assert",
  "with",
  "let",
  "in",
  "rec",
  "inherit",
  "or",
]);

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_'-]*$/;

// A lone UTF-16 surrogate has no UTF-8 encoding: writing it out would silently become U+FFFD.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * True when `name` can appear bare as a Nix variable or attribute name: it matches
 * `[A-Za-z_][A-Za-z0-9_'-]*` and is not a keyword.
 *
 * @example isNixIdentifier("python3Packages") // true; isNixIdentifier("in") // false
 */
export function isNixIdentifier(name: string): boolean {
  return IDENTIFIER.test(name) && !NIX_KEYWORDS.has(name);
}

/**
 * Quotes `s` as a double-quoted Nix string literal.
 *
 * Every `\`, `"` and `$` is backslash-escaped (escaping each `$` rules out `${` interpolation
 * without having to reason about what follows it), and LF, CR and TAB become `\n`, `\r`, `\t`:
 * Nix turns a raw CR or CRLF inside a string into LF, so CR must never appear raw. Other control
 * characters and non-ASCII text pass through as raw UTF-8 bytes, because Nix strings are byte
 * strings with no `\uXXXX` escape (hence never `JSON.stringify`).
 *
 * @example quoteNixString('say "${hi}"\n') // => "say \"\${hi}\"\n"  (as Nix source text)
 * @throws NixEscapeError for NUL (Nix strings are C strings) and lone UTF-16 surrogates.
 */
export function quoteNixString(s: string): string {
  if (s.includes("\0")) {
    throw new NixEscapeError(
      `cannot quote a string containing NUL (\\0) as a Nix string: Nix strings cannot hold NUL bytes`,
    );
  }
  if (LONE_SURROGATE.test(s)) {
    throw new NixEscapeError(
      `cannot quote a string containing a lone UTF-16 surrogate as a Nix string: it has no UTF-8 encoding`,
    );
  }
  let out = '"';
  for (const ch of s) {
    out += ESCAPES.get(ch) ?? ch;
  }
  return `${out}"`;
}

const ESCAPES: ReadonlyMap<string, string> = new Map([
  ["\\", "\\\\"],
  ['"', '\\"'],
  ["$", "\\$"],
  ["\n", "\\n"],
  ["\r", "\\r"],
  ["\t", "\\t"],
]);

/**
 * Formats one attribute name: bare when it is an identifier (see {@link isNixIdentifier}),
 * otherwise a quoted string. A dotted name stays ONE attribute.
 *
 * @example formatAttrName("enable") // enable
 * @example formatAttrName("a.b")    // "a.b"
 * @example formatAttrName("in")     // "in"
 */
export function formatAttrName(name: string): string {
  return isNixIdentifier(name) ? name : quoteNixString(name);
}

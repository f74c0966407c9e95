/**
 * Structural checks shared by the `n.*` builders (which fail early, at the caller) and the
 * printer (which must also reject hand-built trees). Only checks that keep the printed text
 * well-formed live here; string contents are the escaper's business.
 */
import { isNixIdentifier } from "./escape.js";

/** Thrown for an AST that cannot be printed as valid Nix (bad name, path, number, shape). */
export class NixAstError extends Error {
  override readonly name = "NixAstError";
}

// Path literals are emitted verbatim, so only a conservative, unambiguous subset is accepted.
const PATH_LITERAL = /^\.\.?(\/[A-Za-z0-9._+-]+)+$/;

/** Throws unless `name` can be a bare Nix variable (identifier, not a keyword). */
export function assertVarName(name: string, what = "variable name"): void {
  if (!isNixIdentifier(name)) {
    throw new NixAstError(
      `invalid Nix ${what} ${JSON.stringify(name)}: must match [A-Za-z_][A-Za-z0-9_'-]* and not be a keyword`,
    );
  }
}

/**
 * Throws unless `value` is a relative path literal `./a/b.nix` or `../a`: segments of
 * `[A-Za-z0-9._+-]`, no empty segment (`//`), no trailing slash.
 */
export function assertPathLiteral(value: string): void {
  if (!PATH_LITERAL.test(value)) {
    throw new NixAstError(
      `invalid Nix path literal ${JSON.stringify(value)}: expected ./x/y.nix or ../x with segments of [A-Za-z0-9._+-], no "//" and no trailing slash`,
    );
  }
}

/** Throws unless `value` is a JS safe integer (Nix ints are 64-bit; floats are not emitted). */
export function assertSafeInt(value: number): void {
  if (!Number.isSafeInteger(value)) {
    throw new NixAstError(`invalid Nix integer ${String(value)}: must be a safe integer`);
  }
}

/** Throws unless an attribute path has at least one segment. */
export function assertAttrPath(path: readonly string[], what: string): void {
  if (path.length === 0) {
    throw new NixAstError(`invalid ${what}: an attribute path needs at least one name`);
  }
}

/** Throws unless `inherit` names are non-empty identifiers (each becomes a variable in scope). */
export function assertInheritNames(names: readonly string[]): void {
  if (names.length === 0) {
    throw new NixAstError("invalid inherit: it needs at least one name");
  }
  for (const name of names) assertVarName(name, "inherit name");
}

/** Throws unless lambda formals are identifiers without duplicates. */
export function assertFormalNames(names: readonly string[]): void {
  const seen = new Set<string>();
  for (const name of names) {
    assertVarName(name, "formal parameter");
    if (seen.has(name)) {
      throw new NixAstError(`duplicate formal parameter ${JSON.stringify(name)}`);
    }
    seen.add(name);
  }
}

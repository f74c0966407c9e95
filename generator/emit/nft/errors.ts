/**
 * Thrown when an nft AST holds a value that cannot be printed safely. nft strings have no escape
 * for `"`, so values are validated and rejected, never escaped.
 *
 * The message names the field, the bad value and the allowed form, e.g.
 * `table.chains[0].name: "a;b" is not allowed; expected a letter then up to 63 letters, digits or _`.
 */
export class NftValidationError extends Error {
  override readonly name = "NftValidationError";

  constructor(
    /** Path of the offending field, e.g. `table.chains[1].rules[0].verdict.jump`. */
    readonly field: string,
    /** The rejected value, as given. */
    readonly value: unknown,
    /** The allowed form, phrased so it completes "expected …". */
    readonly expected: string,
  ) {
    super(`${field}: ${describe(value)} is not allowed; expected ${expected}`);
  }
}

/** Renders the bad value visibly: JSON shows quotes and control characters as escapes. */
function describe(value: unknown): string {
  if (value === undefined) return "undefined";
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 80 ? `${text.slice(0, 77)}...` : text;
  } catch {
    return String(value);
  }
}

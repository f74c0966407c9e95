import { parseAddress } from "./address.js";
import { NftValidationError } from "./errors.js";
import { NFT_KEYWORDS } from "./keywords.js";

/** Longest timeout accepted, in seconds: stays within 32-bit milliseconds on every kernel. */
export const MAX_TIMEOUT_SECONDS = 4_294_967;

const IDENTIFIER = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const IFNAME = /^[A-Za-z0-9_.@-]{1,15}$/;
// Printable ASCII minus `"` (nft has no escape for it) and `\` (kept out so no reader guesses at one).
const SAFE_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * Table, chain and set names: printed bare because nft 1.0.x cannot quote them, so they must be
 * a plain word that is not an nft keyword.
 */
export function checkIdentifier(field: string, value: unknown): string {
  if (typeof value !== "string" || !IDENTIFIER.test(value)) {
    throw new NftValidationError(field, value, "a letter then up to 63 letters, digits or _");
  }
  if (NFT_KEYWORDS.has(value.toLowerCase())) {
    throw new NftValidationError(field, value, "a name that is not an nft keyword (try a prefix such as forage_)");
  }
  return value;
}

/** Interface names, printed double-quoted: `iifname "ve-f1"`. Linux caps them at 15 bytes. */
export function checkIfname(field: string, value: unknown): string {
  if (typeof value !== "string" || !IFNAME.test(value) || value === "." || value === "..") {
    throw new NftValidationError(field, value, "an interface name of 1-15 characters from A-Z a-z 0-9 _ . @ -");
  }
  return value;
}

/** Comments and log prefixes, printed inside `"…"`; nft cannot escape a quote, so refuse one. */
export function checkText(field: string, value: unknown, maxLength: number): string {
  if (typeof value !== "string" || value.length === 0 || value.length > maxLength || !SAFE_TEXT.test(value)) {
    throw new NftValidationError(field, value, `1-${maxLength} printable ASCII characters without " or \\`);
  }
  return value;
}

/** An integer in [min, max]; `what` names the allowed form in the error. */
export function checkInteger(field: string, value: unknown, min: number, max: number, what: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new NftValidationError(field, value, `${what}: an integer from ${min} to ${max}`);
  }
  return value;
}

/** A port number. */
export function checkPort(field: string, value: unknown): number {
  return checkInteger(field, value, 0, 65535, "a port");
}

/** A packet mark. */
export function checkMark(field: string, value: unknown): number {
  return checkInteger(field, value, 0, 0xffff_ffff, "a mark");
}

/** A duration in whole seconds, printed `60s`. */
export function checkSeconds(field: string, value: unknown): number {
  return checkInteger(field, value, 1, MAX_TIMEOUT_SECONDS, "a duration in seconds");
}

/** One of a closed list of words. */
export function checkOneOf<T extends string>(field: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
    throw new NftValidationError(field, value, `one of ${allowed.join(", ")}`);
  }
  return value as T;
}

/** A plain object, so later property reads cannot fail with a TypeError on null or a string. */
export function checkObject(field: string, value: unknown, form: string): void {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new NftValidationError(field, value, form);
  }
}

/** A non-empty array; nft has no syntax for an empty anonymous set. */
export function checkNonEmpty<T>(field: string, value: readonly T[]): readonly T[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw new NftValidationError(field, value, "a non-empty list");
  }
  return value;
}

/**
 * An IPv4/IPv6 address, or a CIDR when `allowPrefix`; with `version` the family is fixed.
 * CIDRs must have no host bits set, since nft would silently mask `10.0.0.5/8` to `10.0.0.0/8`.
 */
export function checkAddress(
  field: string,
  value: unknown,
  options: { readonly version?: 4 | 6; readonly allowPrefix: boolean; readonly prefixHint?: string },
): 4 | 6 {
  const family = options.version === undefined ? "an IPv4 or IPv6" : `an IPv${options.version}`;
  const form = options.allowPrefix
    ? `${family} address or CIDR`
    : `${family} address (${options.prefixHint ?? "no prefix"})`;
  const parsed = typeof value === "string" ? parseAddress(value) : undefined;
  if (parsed === undefined || (options.version !== undefined && parsed.version !== options.version)) {
    throw new NftValidationError(field, value, form);
  }
  if (parsed.prefix !== undefined && !options.allowPrefix) {
    throw new NftValidationError(field, value, form);
  }
  if (parsed.hostBitsSet) {
    throw new NftValidationError(field, value, "a CIDR whose address has no bits set after the prefix");
  }
  return parsed.version;
}

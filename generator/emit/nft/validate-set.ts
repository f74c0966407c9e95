import type { NftDataType, NftElement, NftElementAtom, NftSet } from "./ast.js";
import { NftValidationError } from "./errors.js";
import {
  checkAddress,
  checkIdentifier,
  checkIfname,
  checkInteger,
  checkMark,
  checkObject,
  checkOneOf,
  checkPort,
  checkSeconds,
  checkText,
} from "./validate-values.js";
import { DATA_TYPES, L4_PROTOS, SET_FLAGS } from "./vocabulary.js";

/** The set's element type as a list: one entry, or one per concatenated field. */
export function setTypes(set: NftSet): readonly NftDataType[] {
  return typeof set.type === "string" ? [set.type] : set.type;
}

/**
 * Validates a named set declaration and its elements.
 *
 * @example validateSet({ name: "allowed4", type: "ipv4_addr", flags: ["timeout"] }, "table.sets[0]")
 */
export function validateSet(set: NftSet, path: string): void {
  checkIdentifier(`${path}.name`, set.name);
  const types: readonly unknown[] = typeof set.type === "string" ? [set.type] : set.type;
  if (!Array.isArray(types) || types.length === 0) {
    throw new NftValidationError(`${path}.type`, set.type, `one of ${DATA_TYPES.join(", ")}, or a list of them`);
  }
  types.forEach((type, index) => checkOneOf(`${path}.type[${index}]`, type, DATA_TYPES));
  validateFlags(set, path);
  if (set.timeout !== undefined) checkSeconds(`${path}.timeout`, set.timeout);
  if (set.gcInterval !== undefined) checkSeconds(`${path}.gcInterval`, set.gcInterval);
  if (set.size !== undefined) checkInteger(`${path}.size`, set.size, 1, 0xffff_ffff, "a set size");
  if (set.comment !== undefined) checkText(`${path}.comment`, set.comment, 128);
  if (set.counter !== undefined && typeof set.counter !== "boolean")
    throw new NftValidationError(`${path}.counter`, set.counter, "true or false");
  if (set.elements !== undefined) validateElements(set, set.elements, `${path}.elements`);
}

function validateFlags(set: NftSet, path: string): void {
  const flags = set.flags ?? [];
  flags.forEach((flag, index) => checkOneOf(`${path}.flags[${index}]`, flag, SET_FLAGS));
  if (new Set(flags).size !== flags.length) {
    throw new NftValidationError(`${path}.flags`, flags, "each flag at most once");
  }
  // The kernel refuses a constant set that can also change (EOPNOTSUPP), so say so here.
  if (flags.includes("constant") && (flags.includes("timeout") || flags.includes("dynamic"))) {
    throw new NftValidationError(`${path}.flags`, flags, "constant without timeout or dynamic");
  }
}

/**
 * Validates elements against the set's type and flags: CIDRs need `interval`, per-element
 * timeouts need the `timeout` flag or a set timeout, concatenations need one value per field.
 */
export function validateElements(set: NftSet, elements: readonly NftElement[], path: string): void {
  const types = setTypes(set);
  const interval = set.flags?.includes("interval") ?? false;
  const timeouts = (set.flags?.includes("timeout") ?? false) || set.timeout !== undefined;
  elements.forEach((element, index) => {
    const at = `${path}[${index}]`;
    checkObject(at, element, "an element object { value, timeout? }");
    if (element.timeout !== undefined) {
      if (!timeouts) {
        const expected = `no timeout, or set ${set.name} to have flags timeout`;
        throw new NftValidationError(`${at}.timeout`, element.timeout, expected);
      }
      checkSeconds(`${at}.timeout`, element.timeout);
    }
    validateValue(types, element.value, interval, `${at}.value`);
  });
}

function validateValue(types: readonly NftDataType[], value: unknown, interval: boolean, path: string): void {
  const [only] = types;
  if (types.length === 1 && only !== undefined) {
    validateAtom(only, value, interval, path);
    return;
  }
  if (!Array.isArray(value) || value.length !== types.length) {
    throw new NftValidationError(path, value, `a list of ${types.length} values of type ${types.join(" . ")}`);
  }
  types.forEach((type, index) => validateAtom(type, value[index], interval, `${path}[${index}]`));
}

/** Checks one value against one data type. */
export function validateAtom(type: NftDataType, value: unknown, interval: boolean, path: string): NftElementAtom {
  switch (type) {
    case "ipv4_addr":
    case "ipv6_addr":
      checkAddress(path, value, {
        version: type === "ipv4_addr" ? 4 : 6,
        allowPrefix: interval,
        prefixHint: "a CIDR needs flags interval on the set",
      });
      return value as string;
    case "inet_service":
      return checkPort(path, value);
    case "inet_proto":
      return checkOneOf(path, value, L4_PROTOS);
    case "ifname":
      return checkIfname(path, value);
    case "mark":
      return checkMark(path, value);
  }
}

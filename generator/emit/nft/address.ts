import { isIPv4, isIPv6 } from "node:net";

/** An address or CIDR that node:net accepts, split into its parts. */
export interface ParsedAddress {
  readonly version: 4 | 6;
  /** Prefix length of a CIDR; undefined for a plain address. */
  readonly prefix: number | undefined;
  /** True when a CIDR has bits set after its prefix (`10.0.0.5/8`). */
  readonly hostBitsSet: boolean;
}

/**
 * Parses `1.2.3.4`, `10.0.0.0/8`, `fd00::1` or `fd00::/64` as nft prints them.
 * Returns undefined for anything else, including IPv6 zone ids (`fe80::1%eth0`), which node's
 * `isIPv6` accepts but which would smuggle arbitrary text into the ruleset.
 *
 * @example parseAddress("fd00::/64") // { version: 6, prefix: 64, hostBitsSet: false }
 */
export function parseAddress(text: string): ParsedAddress | undefined {
  const parts = text.split("/");
  if (parts.length > 2) return undefined;
  const [address = "", prefixText] = parts;
  if (address.includes("%")) return undefined;
  const version = isIPv4(address) ? 4 : isIPv6(address) ? 6 : undefined;
  if (version === undefined) return undefined;
  if (prefixText === undefined) return { version, prefix: undefined, hostBitsSet: false };
  if (!/^(0|[1-9][0-9]{0,2})$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  const bytes = version === 4 ? address.split(".").map(Number) : ipv6Bytes(address);
  if (prefix > bytes.length * 8) return undefined;
  return { version, prefix, hostBitsSet: hasHostBits(bytes, prefix) };
}

/** True when any bit after the first `prefix` bits is set. */
function hasHostBits(bytes: readonly number[], prefix: number): boolean {
  return bytes.some((byte, index) => {
    const keep = Math.min(8, Math.max(0, prefix - index * 8));
    const hostMask = 0xff >> keep;
    return (byte & hostMask) !== 0;
  });
}

/** Expands an IPv6 address node:net already accepted into its 16 bytes. */
function ipv6Bytes(address: string): number[] {
  let head = address;
  const tail: number[] = [];
  const lastColon = address.lastIndexOf(":");
  const last = address.slice(lastColon + 1);
  if (last.includes(".")) {
    tail.push(...last.split(".").map(Number));
    head = address.slice(0, address.endsWith(`::${last}`) ? lastColon + 1 : lastColon);
  }
  const [left = "", right] = head.split("::");
  const leftWords = left === "" ? [] : left.split(":");
  const rightWords = right === undefined || right === "" ? [] : right.split(":");
  const missing = 8 - tail.length / 2 - leftWords.length - rightWords.length;
  const words = [...leftWords, ...Array<string>(Math.max(0, missing)).fill("0"), ...rightWords];
  const bytes = words.flatMap((word) => {
    const value = parseInt(word, 16);
    return [value >> 8, value & 0xff];
  });
  return [...bytes, ...tail];
}

/**
 * systemd-style bytes with an optional K/M/G/T suffix (memoryMax's grammar, without "infinity"):
 * workspace.maxSize, and memoryMax once resolved. Its own module so forage.json's reader does
 * not build the whole config schema to check one size.
 *
 * @example sizePattern.test("10G") // true
 */
export const sizePattern = /^[1-9][0-9]{0,6}[KMGT]?$/;

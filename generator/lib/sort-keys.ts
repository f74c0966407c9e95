/**
 * Recursively sorts object keys (by code unit) and drops undefined values, so JSON written from
 * the result is byte-for-byte deterministic. Arrays keep their order.
 *
 * @example JSON.stringify(sortKeys({ b: 1, a: { d: undefined, c: 2 } })) // '{"a":{"c":2},"b":1}'
 */
export function sortKeys<T>(value: T): T {
  return sortValue(value) as T;
}

function sortValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortValue);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, sortValue(v)]),
    );
  }
  return value;
}

/**
 * `T` with every property that may hold `undefined` made optional instead, never `undefined`:
 * the type of `dropUndefined(value)`. Under `exactOptionalPropertyTypes` an optional property
 * (`repo?: string`) may be absent but not `undefined`, which is what JSON carries too.
 *
 * @example WithoutUndefined<{ name: string; repo: string | undefined }> is { name: string; repo?: string }
 */
export type WithoutUndefined<T extends object> = Flat<
  { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
    [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
  }
>;

type Flat<T> = { [K in keyof T]: T[K] };

/**
 * A shallow copy of `value` without its `undefined` properties, so optional values can be passed
 * on by name instead of one `...(x === undefined ? {} : { x })` each.
 *
 * @example dropUndefined({ name: "a", repo: undefined }) returns { name: "a" }
 */
export function dropUndefined<T extends object>(value: T): WithoutUndefined<T> {
  const kept = Object.entries(value).filter(([, each]) => each !== undefined);
  // The entries are T's own, minus the undefined ones: exactly what WithoutUndefined<T> describes.
  return Object.fromEntries(kept) as WithoutUndefined<T>;
}

import { describe, expect, expectTypeOf, it } from "vitest";
import { dropUndefined } from "../../../generator/lib/drop-undefined.js";

describe("dropUndefined", () => {
  it("leaves out undefined properties and keeps every other value, falsy ones included", () => {
    const kept = dropUndefined({ name: "a", repo: undefined, direct: false, count: 0, text: "", change: null });
    expect(kept).toEqual({ name: "a", direct: false, count: 0, text: "", change: null });
    expect(Object.keys(kept)).not.toContain("repo");
  });

  it("types a maybe-undefined property as optional, never undefined (exactOptionalPropertyTypes)", () => {
    const repo: string | undefined = process.env.FORAGE_NO_SUCH_VARIABLE;
    const kept = dropUndefined({ name: "a", repo, change: null as string | null });
    expectTypeOf(kept).toEqualTypeOf<{ name: string; change: string | null; repo?: string }>();
    // Assignable where an optional property may be absent but not undefined.
    const target: { name: string; repo?: string } = kept;
    expect(target).toEqual({ name: "a", change: null });
  });

  it("makes a copy: the given object is not changed", () => {
    const given = { a: 1, b: undefined };
    dropUndefined(given);
    expect(given).toEqual({ a: 1, b: undefined });
  });
});

import { describe, expect, it } from "vitest";
import { fromValue, NixAstError, printNix, type NixData } from "../../../../generator/emit/nix/index.js";

describe("fromValue", () => {
  it("converts scalars to literals", () => {
    expect(["x", 3, -3, true, null].map((value) => printNix(fromValue(value)))).toEqual([
      '"x"',
      "3",
      "-3",
      "true",
      "null",
    ]);
  });

  it("sorts object keys whatever order they were inserted in", () => {
    expect(printNix(fromValue({ b: 1, a: 2, A: 3 }))).toBe("{\n  A = 3;\n  a = 2;\n  b = 1;\n}");
  });

  it("skips properties whose value is undefined", () => {
    expect(printNix(fromValue({ a: undefined, b: 1 }))).toBe("{\n  b = 1;\n}");
  });

  it("keeps each key as one attribute name, quoting where needed", () => {
    expect(printNix(fromValue({ "a.b": 1, in: 2 }))).toBe('{\n  "a.b" = 1;\n  "in" = 2;\n}');
  });

  it("converts nested arrays and objects", () => {
    expect(printNix(fromValue({ l: [1, [], { k: "v" }] }))).toBe(
      '{\n  l = [\n    1\n    [ ]\n    {\n      k = "v";\n    }\n  ];\n}',
    );
  });

  it.each([1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])("rejects the number %d", (value) => {
    expect(() => fromValue({ a: value })).toThrow(NixAstError);
  });

  it("names where a rejected float sits", () => {
    expect(() => fromValue({ a: [0, 0.5] })).toThrow(/value\["a"\]\[1\]/);
  });

  it("rejects undefined array items", () => {
    expect(() => fromValue([undefined] as unknown as NixData)).toThrow(NixAstError);
  });

  it("rejects values that are not plain data", () => {
    for (const value of [new Date(0), new Map(), () => 1, 1n, Symbol("s")]) {
      expect(() => fromValue(value as unknown as NixData)).toThrow(NixAstError);
    }
  });

  it("rejects cyclic data", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => fromValue(cyclic as NixData)).toThrow(/cycle/);
  });

  it("accepts the same object twice when it is not a cycle", () => {
    const shared = { a: 1 };
    expect(printNix(fromValue([shared, shared]))).toContain("a = 1;");
  });

  it("treats an object shaped like an AST node as data", () => {
    expect(printNix(fromValue({ kind: "var", name: "x" }))).toBe('{\n  kind = "var";\n  name = "x";\n}');
  });
});

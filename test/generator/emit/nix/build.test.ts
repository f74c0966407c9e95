import { describe, expect, it } from "vitest";
import { n, NixAstError, printNix } from "../../../../generator/emit/nix/index.js";

describe("n (AST constructors)", () => {
  it("treats a dotted record key as one quoted attribute", () => {
    expect(printNix(n.attrs({ "a.b": n.int(1) }))).toBe('{\n  "a.b" = 1;\n}');
  });

  it("keeps record insertion order", () => {
    expect(printNix(n.attrs({ z: n.int(1), a: n.int(2) }))).toBe("{\n  z = 1;\n  a = 2;\n}");
  });

  it("leaves out record entries whose value is undefined", () => {
    expect(printNix(n.attrs({ a: undefined, b: n.int(1) }))).toBe("{\n  b = 1;\n}");
  });

  it("does not freeze or keep the caller's arrays", () => {
    const items = [n.int(1)];
    const list = n.list(items);
    items.push(n.int(2));
    expect([Object.isFrozen(items), printNix(list)]).toEqual([false, "[ 1 ]"]);
  });

  it.each(["/abs/path", "x.nix", "./", "./a//b", "./a/", "../", "./a b", "./${x}", "~/x", "."])(
    "rejects the path literal %j",
    (value) => {
      expect(() => n.path(value)).toThrow(NixAstError);
    },
  );

  it.each(["./x.nix", "../x", "./a/b-c_d+e.nix", "../../a/./b", "./."])("accepts the path literal %j", (value) => {
    expect(printNix(n.path(value))).toBe(value);
  });

  it.each(["in", "or", "a b", "1x", "", "a.b"])("rejects the variable name %j", (name) => {
    expect(() => n.v(name)).toThrow(NixAstError);
  });

  it.each([1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])("rejects the int %d", (value) => {
    expect(() => n.int(value)).toThrow(NixAstError);
  });

  it("rejects a select without a path", () => {
    expect(() => n.sel(n.v("a"))).toThrow(NixAstError);
  });

  it("rejects a call without arguments", () => {
    expect(() => n.call(n.v("f"))).toThrow(NixAstError);
  });

  it("rejects duplicate formals", () => {
    expect(() => n.fn(["a", "a"], n.nul)).toThrow(/duplicate formal/);
  });

  it("rejects an ellipsis on a single-parameter lambda", () => {
    expect(() => n.fn("x", n.nul, { ellipsis: true })).toThrow(NixAstError);
  });

  it("rejects inherit of a name that is not an identifier", () => {
    expect(() => n.inherit(["a b"])).toThrow(NixAstError);
  });

  it("builds a let from explicit bindings", () => {
    const tree = n.let([n.inherit(["lib"], n.v("pkgs")), n.attr(["a", "b"], n.int(1))], n.v("a"));
    expect(printNix(tree)).toBe("let\n  inherit (pkgs) lib;\n  a.b = 1;\nin\na");
  });
});

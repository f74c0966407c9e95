import { describe, expect, it } from "vitest";
import { n, NixAstError, NixEscapeError, printNix, type NixExpr } from "../../../../generator/emit/nix/index.js";
import { SAMPLES } from "./samples.js";

describe("printNix", () => {
  it.each(SAMPLES)("$name", ({ expr, text }) => {
    expect(printNix(expr)).toBe(text);
  });

  it("prints the same tree to the same text every time", () => {
    const tree = n.attrs({ b: n.list([n.str("x"), n.call(n.v("f"), n.v("y"))]), a: n.int(1) });
    expect(printNix(tree)).toBe(printNix(tree));
  });

  it("indents a multi-line value inside a list item by the item's depth", () => {
    const tree = n.list([n.attrs({ a: n.list([n.int(1), n.call(n.v("f"), n.v("x"))]) })]);
    expect(printNix(tree)).toBe("[\n  {\n    a = [\n      1\n      (f x)\n    ];\n  }\n]");
  });

  it("rejects a raw node that was not built by the nix tag", () => {
    const forged = { kind: "raw", parts: ["builtins.abort 1"] } as NixExpr;
    expect(() => printNix(forged)).toThrow(NixAstError);
  });

  it("rejects a hand-built operator it does not support", () => {
    const forged = { kind: "binop", op: "; x", left: n.v("a"), right: n.v("b") } as unknown as NixExpr;
    expect(() => printNix(forged)).toThrow(/unsupported Nix operator/);
  });

  it("rejects a hand-built node of an unknown kind", () => {
    expect(() => printNix({ kind: "with" } as unknown as NixExpr)).toThrow(/unknown Nix AST node kind/);
  });

  it("rejects a hand-built variable that is a keyword", () => {
    expect(() => printNix({ kind: "var", name: "in" })).toThrow(NixAstError);
  });

  it("rejects a hand-built path outside the relative-path subset", () => {
    expect(() => printNix({ kind: "path", value: "/etc/passwd" })).toThrow(NixAstError);
  });

  it("rejects a hand-built float", () => {
    expect(() => printNix({ kind: "int", value: 1.5 })).toThrow(NixAstError);
  });

  it("rejects a hand-built application without arguments", () => {
    expect(() => printNix({ kind: "apply", fn: n.v("f"), args: [] })).toThrow(NixAstError);
  });

  it("rejects a hand-built binding with an empty path", () => {
    const tree: NixExpr = { kind: "attrs", bindings: [{ kind: "attr", path: [], value: n.nul }] };
    expect(() => printNix(tree)).toThrow(NixAstError);
  });

  it("rejects a comment containing NUL", () => {
    expect(() => printNix(n.bindings([n.attr("a", n.nul, "x\0y")]))).toThrow(NixAstError);
  });

  it("rejects a string containing NUL anywhere in the tree", () => {
    expect(() => printNix(n.attrs({ a: n.list([n.str("a\0b")]) }))).toThrow(NixEscapeError);
  });
});

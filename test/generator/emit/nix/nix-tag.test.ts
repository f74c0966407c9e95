import { describe, expect, it } from "vitest";
import { fromValue, n, nix, NixAstError, printNix } from "../../../../generator/emit/nix/index.js";

describe("nix tagged template", () => {
  it("splices AST holes as code", () => {
    expect(printNix(nix`lib.mkIf ${n.sel(n.v("cfg"), "enable")} ${n.v("x")}`)).toBe("lib.mkIf cfg.enable x");
  });

  it("turns a JS string hole into an escaped string literal, never code", () => {
    const hostile = '"; builtins.abort "x" #';
    expect(printNix(nix`f ${hostile}`)).toBe('f "\\"; builtins.abort \\"x\\" #"');
  });

  it("turns a JS string that looks like a variable into a string, not a variable", () => {
    expect(printNix(nix`f ${"pkgs"}`)).toBe('f "pkgs"');
  });

  it("turns number, boolean, null, array and object holes into literals", () => {
    expect(printNix(nix`f ${1} ${true} ${null} ${["a"]} ${{ k: "v" }}`)).toBe('f 1 true null [ "a" ] {\n  k = "v";\n}');
  });

  it("parenthesises a non-atomic hole", () => {
    expect(printNix(nix`g ${n.call(n.v("f"), n.v("x"))} ${-1}`)).toBe("g (f x) (-1)");
  });

  it("keeps the literal text verbatim, without interpreting JS escapes", () => {
    expect(printNix(nix`"a\nb"`)).toBe('"a\\nb"');
  });

  it("refuses an unbuilt object that looks like an AST node", () => {
    const lookalike = { kind: "raw", parts: ["builtins.abort 1"] };
    expect(() => nix`f ${lookalike}`).toThrow(/looks like a Nix AST node/);
  });

  it("accepts node-shaped data passed through fromValue", () => {
    expect(printNix(nix`f ${fromValue({ kind: "var" })}`)).toBe('f {\n  kind = "var";\n}');
  });

  it("refuses to be called with a hand-made array instead of a template", () => {
    const fake = Object.assign(["builtins.abort 1"], { raw: ["builtins.abort 1"] });
    expect(() => nix(fake)).toThrow(NixAstError);
  });

  it("makes a node whose parts cannot be changed afterwards", () => {
    const raw = nix`a`;
    expect(() => (raw.parts as string[]).push("; b")).toThrow(TypeError);
  });
});

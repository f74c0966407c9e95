import { describe, expect, it } from "vitest";
import {
  formatAttrName,
  isNixIdentifier,
  NixEscapeError,
  quoteNixString,
} from "../../../../generator/emit/nix/index.js";

describe("quoteNixString", () => {
  it("wraps plain text in double quotes", () => {
    expect(quoteNixString("hello world")).toBe('"hello world"');
  });

  it("escapes backslash and double quote", () => {
    expect(quoteNixString('a\\b"c')).toBe('"a\\\\b\\"c"');
  });

  it("escapes every dollar sign so ${ can never interpolate", () => {
    expect(quoteNixString("$x ${y} $${z} $")).toBe('"\\$x \\${y} \\$\\${z} \\$"');
  });

  it("escapes LF, CR and TAB as \\n, \\r and \\t", () => {
    expect(quoteNixString("a\nb\rc\td")).toBe('"a\\nb\\rc\\td"');
  });

  it("passes other control characters through raw", () => {
    expect(quoteNixString("\x01\x1b\x7f")).toBe('"\x01\x1b\x7f"');
  });

  it("passes non-ASCII text through raw instead of \\u escapes", () => {
    expect(quoteNixString("🦊 é")).toBe('"🦊 é"');
  });

  it("rejects NUL with a NixEscapeError that names the problem", () => {
    expect(() => quoteNixString("a\0b")).toThrow(NixEscapeError);
    expect(() => quoteNixString("a\0b")).toThrow(/NUL/);
  });

  it("rejects a lone UTF-16 surrogate, which has no UTF-8 encoding", () => {
    expect(() => quoteNixString("a\uD83Eb")).toThrow(NixEscapeError);
  });
});

describe("formatAttrName", () => {
  it("leaves an identifier bare", () => {
    expect(formatAttrName("python3Packages")).toBe("python3Packages");
  });

  it("leaves identifiers with primes, dashes and underscores bare", () => {
    expect(formatAttrName("_a'-b_1")).toBe("_a'-b_1");
  });

  it.each(["if", "then", "else", "assert", "with", "let", "in", "rec", "inherit", "or"])(
    "quotes the keyword %s",
    (keyword) => {
      expect(formatAttrName(keyword)).toBe(`"${keyword}"`);
    },
  );

  it("quotes a dotted name as one attribute", () => {
    expect(formatAttrName("a.b")).toBe('"a.b"');
  });

  it("quotes a name starting with a digit or dash", () => {
    expect([formatAttrName("1a"), formatAttrName("-a")]).toEqual(['"1a"', '"-a"']);
  });

  it("quotes the empty name", () => {
    expect(formatAttrName("")).toBe('""');
  });

  it("quotes and escapes a name that looks like interpolation", () => {
    expect(formatAttrName("${k}")).toBe('"\\${k}"');
  });
});

describe("isNixIdentifier", () => {
  it("accepts identifiers and rejects keywords, spaces and leading digits", () => {
    expect(["pkgs", "in", "a b", "1a", "true"].map(isNixIdentifier)).toEqual([true, false, false, false, true]);
  });
});

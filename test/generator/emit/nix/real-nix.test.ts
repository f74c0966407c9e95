/**
 * The printer and escaper checked against the real Nix parser and evaluator (ARCHITECTURE.md rules 2, 10).
 */
import { describe, expect, it } from "vitest";
import { fromValue, n, printNix, type NixExpr } from "../../../../generator/emit/nix/index.js";
import { toolsAvailable } from "../../../support/tools.js";
import { evalNixJson, parseNix } from "./nix-cli.js";
import { FREE_VARIABLES, SAMPLES } from "./samples.js";

const tools = toolsAvailable("nix-instantiate");

const HOSTILE_STRINGS: readonly (readonly [string, string])[] = [
  ["interpolation", "${x}"],
  ["indented-string interpolation", "''${x}"],
  ["backslash", "\\"],
  ["backslash n", "\\n"],
  ["double quote", '"'],
  ["single quote", "'"],
  ["dollar", "$"],
  ["two dollars", "$$"],
  ["dollar brace", "${"],
  ["escaped dollar brace", "\\${"],
  ["CR", "\r"],
  ["LF", "\n"],
  ["CRLF", "\r\n"],
  ["TAB", "\t"],
  ["control characters", "\x01\x1b\x7f"],
  ["emoji", "🦊"],
  ["empty", ""],
  ["string breakout", '"; builtins.abort "x" #'],
  ["mix", "a${b}\\\"c\r\n$''${d}\t🦊\x01e\\${f}$$g\""],
];

/** Wraps `expr` in a let that binds the samples' free variables, so `--parse` accepts them. */
function withFreeVariables(expr: NixExpr): NixExpr {
  return n.let(Object.fromEntries(FREE_VARIABLES.map((name) => [name, n.nul])), expr);
}

/**
 * Evaluates all hostile strings in one Nix call; if that call fails to parse or evaluate, falls
 * back to one call per string so the failure names the culprit. Returns one line per mismatch.
 */
function hostileStringMismatches(): string[] {
  const explain = ([name, value]: readonly [string, string], got: string): string =>
    `${name}: ${JSON.stringify(value)} came back as ${got}`;
  let batch: unknown;
  try {
    batch = evalNixJson(printNix(n.list(HOSTILE_STRINGS.map(([, value]) => n.str(value)))));
  } catch {
    return HOSTILE_STRINGS.flatMap((entry) => {
      try {
        const got = evalNixJson(printNix(n.str(entry[1])));
        return got === entry[1] ? [] : [explain(entry, JSON.stringify(got))];
      } catch (error) {
        return [explain(entry, `an error: ${String(error).split("\n").slice(0, 3).join(" ")}`)];
      }
    });
  }
  const results = batch as unknown[];
  return HOSTILE_STRINGS.flatMap((entry, index) =>
    results[index] === entry[1] ? [] : [explain(entry, JSON.stringify(results[index]))],
  );
}

describe.skipIf(!tools.run)(`real Nix (nix-instantiate) ${tools.reason}`, () => {
  it("evaluates every hostile string back to exactly the same string", () => {
    expect(hostileStringMismatches()).toEqual([]);
  });

  it("evaluates an attribute set built from data with hostile keys back to the same data", () => {
    const data = {
      in: "keyword",
      "a.b": "dotted stays one name",
      "x y": "${x}",
      "${k}": "\\${k}",
      "": "empty key",
      or: ["list", 1, -2, true, false, null],
      nested: { if: { then: "\r\n\t" }, "🦊": "emoji key" },
      big: Number.MAX_SAFE_INTEGER,
      small: Number.MIN_SAFE_INTEGER,
    };
    expect(evalNixJson(printNix(fromValue(data)))).toEqual(data);
  });

  it.each(SAMPLES)("parses the printed sample: $name", ({ expr }) => {
    expect(() => parseNix(printNix(withFreeVariables(expr)))).not.toThrow();
  });

  it("parses a composed module-like expression", () => {
    const { config, lib, pkgs } = { config: n.v("config"), lib: n.v("lib"), pkgs: n.v("pkgs") };
    const module = n.fn(
      ["config", "lib", "pkgs"],
      n.bindings([
        n.attr(
          ["services", "x"],
          n.call(
            n.sel(lib, "mkIf"),
            n.sel(config, "a", "enable"),
            n.attrs({
              y: n.list([n.sel(pkgs, "hello"), n.call(n.sel(pkgs, "callPackage"), n.path("./p.nix"), n.attrs({}))]),
            }),
          ),
        ),
      ]),
      { ellipsis: true },
    );
    const printed = printNix(module);
    expect(printed).toBe(
      [
        "{ config, lib, pkgs, ... }:",
        "{",
        "  services.x = lib.mkIf config.a.enable {",
        "    y = [",
        "      pkgs.hello",
        "      (pkgs.callPackage ./p.nix { })",
        "    ];",
        "  };",
        "}",
      ].join("\n"),
    );
    expect(() => parseNix(printed)).not.toThrow();
  });

  it("evaluates a function application in a list as one item", () => {
    const printed = printNix(
      n.list([n.call(n.sel(n.v("builtins"), "toString"), n.int(1)), n.int(-1), n.selOr(n.attrs({}), ["a"], n.int(2))]),
    );
    expect(evalNixJson(printed)).toEqual(["1", -1, 2]);
  });
});

import { describe, expect, it } from "vitest";
import { typescriptLocator } from "../../../generator/config/locate-typescript.js";

const source = [
  'import { defineConfig } from "forage";',
  'const shared = { mode: "none" };',
  "export default defineConfig({",
  '  user: "alice",',
  "  templates: {",
  '    "claude-x": {',
  '      extraPackages: ["ok", "not ok"],',
  "      network: shared,",
  "      netwrk: 1,",
  "    },",
  "  },",
  "});",
].join("\n");

describe("locating a config path in forage.config.ts", () => {
  const locate = typescriptLocator(source);

  it("finds a value by property names, including quoted keys", () => {
    expect(locate(["user"])).toEqual({ line: 4, column: 9 });
    expect(locate(["templates", "claude-x", "network"])).toEqual({ line: 8, column: 16 });
  });

  it("finds array elements by index", () => {
    expect(locate(["templates", "claude-x", "extraPackages", 1])).toEqual({ line: 7, column: 29 });
  });

  it("points at the key itself when asked (a misspelt option)", () => {
    expect(locate(["templates", "claude-x", "netwrk"], true)).toEqual({ line: 9, column: 7 });
  });

  it("falls back to the nearest literal for a value computed in code", () => {
    expect(locate(["templates", "claude-x", "network", "mode"])).toEqual({ line: 8, column: 16 });
  });

  it("points at the exported expression when the default export is not a literal", () => {
    expect(typescriptLocator("const c = {};\nexport default c;\n")(["user"])).toEqual({ line: 2, column: 16 });
  });

  it("gives no position when there is no default export", () => {
    expect(typescriptLocator("export const c = {};\n")(["user"])).toBeUndefined();
  });
});

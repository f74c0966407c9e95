import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../runtime/core/package-root.js";
import { sourceFiles } from "./import-graph.js";

const root = packageRoot();
const files = sourceFiles(root);

/**
 * Switches over unions the project declares are exhaustive: TypeScript refuses one that misses a
 * member (no default, or a default that assigns the value to `never`). A default is kept only
 * where the union is someone else's and grows without us (zod's issue codes and types, typeof).
 */
const externalUnionSwitches = new Set([
  "generator/config/zod-issues.ts",
  "generator/schema-export/nix-options.ts",
  "generator/emit/nix/from-value.ts",
]);

function switchBlocks(text: string): string[] {
  const blocks: string[] = [];
  for (let at = text.indexOf("switch ("); at !== -1; at = text.indexOf("switch (", at + 1)) {
    let depth = 0;
    const open = text.indexOf("{", at);
    for (let i = open; i < text.length; i++) {
      depth += text[i] === "{" ? 1 : text[i] === "}" ? -1 : 0;
      if (depth === 0) {
        blocks.push(text.slice(at, i + 1));
        break;
      }
    }
  }
  return blocks;
}

describe("switches", () => {
  it("over the project's own unions have no default that hides a missing case", () => {
    const hiding = files
      .filter((f) => !externalUnionSwitches.has(f))
      .flatMap((f) => switchBlocks(readFileSync(join(root, f), "utf8")).map((block) => ({ f, block })))
      .filter(({ block }) => /\bdefault:/.test(block) && !/: never = /.test(block))
      .map(({ f, block }) => `${f}: ${block.split("\n")[0] ?? ""}`);
    expect(hiding).toEqual([]);
  });

  it("control: a default without the never check is found", () => {
    expect(
      switchBlocks('switch (x.kind) {\n  case "a":\n    return 1;\n  default:\n    return 0;\n}').filter(
        (b) => /\bdefault:/.test(b) && !/: never = /.test(b),
      ),
    ).toHaveLength(1);
  });
});

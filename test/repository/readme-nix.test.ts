import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nixParseFile } from "../support/nix.js";
import { fencedBlocks } from "../support/readme-snippets.js";
import { toolsAvailable } from "../support/tools.js";

/*
 * The README's Nix blocks parse with the real parser. A block of bindings (`services.forage.x =
 * …;`, what goes inside a module's attribute set) is parsed inside `{ }`.
 */

const readme = readFileSync(fileURLToPath(new URL("../../README.md", import.meta.url)), "utf8");
const nixBlocks = fencedBlocks(readme).blocks.filter(({ language }) => language === "nix");
const nix = toolsAvailable("nix-instantiate");

/** The block as a whole Nix expression: bindings (after any leading comments) go inside `{ }`. */
function asExpression(text: string): string {
  const code = text.replace(/^(\s*#[^\n]*\n)*/, "");
  return /^\s*[A-Za-z_][\w'-]*(\.[A-Za-z_][\w'-]*)*\s*=/.test(code) ? `{\n${text}\n}\n` : text;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "forage-readme-nix-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!nix.run)("the README's Nix blocks", () => {
  it("are found (control)", () => {
    expect(nixBlocks.length).toBeGreaterThan(0);
  });

  it.each(nixBlocks.map((block) => [`README.md:${block.line}`, block] as const))("%s parses", async (_, block) => {
    const file = join(dir, `block-${block.line}.nix`);
    await writeFile(file, asExpression(block.text));
    expect(() => nixParseFile(file)).not.toThrow();
  });

  it("are parsed strictly enough to fail (control: a missing semicolon)", async () => {
    const file = join(dir, "broken.nix");
    await writeFile(file, asExpression("services.forage.enable = true"));
    expect(() => nixParseFile(file)).toThrow(/syntax error/);
  });
});

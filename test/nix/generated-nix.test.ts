import { mkdtempSync, mkdirSync, rmSync, writeFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nixOptionFiles } from "../../generator/schema-export/nix-option-files.js";
import { generateCase, goldenCases } from "../golden/cases.js";
import { nixEvalJson, nixParseFile, nixString, repoRoot, standInDir } from "../support/nix.js";
import { toolsAvailable } from "../support/tools.js";
import { checkOptionValues, type OptionDecl } from "./option-types.js";
import { readFileSync } from "node:fs";

const tools = toolsAvailable("nix-instantiate");
const lib = `(import ${nixString(join(standInDir, "lib.nix"))})`;

/** Writes every case's output to a temp dir (so Nix can import it) and returns its path. */
async function writeCase(root: string, name: string, input: string): Promise<string> {
  const dir = join(root, name);
  for (const file of await generateCase(input)) {
    mkdirSync(dirname(join(dir, file.path)), { recursive: true });
    writeFileSync(join(dir, file.path), file.contents);
  }
  return dir;
}

/** The stand-in package set with a fake package at every attribute path the case refers to. */
export function standInPkgs(attributePaths: string[][]): string {
  const specs = attributePaths.map((path) => `{ path = [ ${path.map(nixString).join(" ")} ]; }`).join(" ");
  return `(import ${nixString(join(standInDir, "pkgs.nix"))} { lib = ${lib}; packages = [ ${specs} ]; })`;
}

describe.skipIf(!tools.run)("generated Nix, checked with the real evaluator", () => {
  let root = "";
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "forage-nix-"));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("keeps modules/options/*.nix in step with the zod schema (run `npm run gen:options` after a schema change)", () => {
    for (const file of nixOptionFiles()) {
      expect(readFileSync(join(repoRoot, file.path), "utf8"), file.path).toBe(file.contents);
    }
  });

  it("parses every hand-written module file", () => {
    const files = readdirSync(join(repoRoot, "modules"), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile() && e.name.endsWith(".nix"))
      .map((e) => join(e.parentPath, e.name));
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) nixParseFile(file);
  });

  describe.each(goldenCases)("$name", ({ name, input }) => {
    it("parses every generated .nix file", async () => {
      const dir = await writeCase(root, `${name}-parse`, input);
      const files = (await generateCase(input)).filter((f) => f.path.endsWith(".nix"));
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) nixParseFile(join(dir, file.path));
    });

    it("sets services.forage to values that fit the declared option types", async () => {
      const dir = await writeCase(root, `${name}-types`, input);
      const { host, values } = evaluateHostModule(dir, await packagePaths(input));
      expect(values.enable).toBe(true);
      delete values.enable;
      delete values.generated;
      expect(checkOptionValues(host, values)).toEqual([]);
    });
  });
});

async function packagePaths(input: string): Promise<string[][]> {
  const { loadCaseModel } = await import("../golden/cases.js");
  const model = await loadCaseModel(input);
  return model.templates.flatMap((t) => [...t.agents.map((a) => a.package), ...t.extraPackages]);
}

function evaluateHostModule(dir: string, paths: string[][]): { host: Record<string, OptionDecl>; values: Record<string, unknown> } {
  const expression = `
    let
      module = import ${nixString(join(dir, "default.nix"))} { config = { }; lib = ${lib}; pkgs = ${standInPkgs(paths)}; };
    in {
      host = import ${nixString(join(repoRoot, "modules/options/host.nix"))} { lib = ${lib}; };
      values = module.services.forage;
    }`;
  return nixEvalJson(expression) as { host: Record<string, OptionDecl>; values: Record<string, unknown> };
}

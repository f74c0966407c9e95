import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nixOptionFiles } from "../../generator/schema-export/nix-option-files.js";
import { generateCase, goldenCases } from "../golden/cases.js";
import { casePackagePaths, standInLib, standInPkgs, writeCaseOutput } from "../support/generated-case.js";
import { nixEvalJson, nixParseFile, nixString, repoRoot } from "../support/nix.js";
import { toolsAvailable } from "../support/tools.js";
import { checkOptionValues, type OptionDecl } from "./option-types.js";

const tools = toolsAvailable("nix-instantiate");
const lib = standInLib;

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
      const dir = await writeCaseOutput(join(root, `${name}-parse`), input);
      const files = (await generateCase(input)).filter((f) => f.path.endsWith(".nix"));
      expect(files.length).toBeGreaterThan(0);
      for (const file of files) nixParseFile(join(dir, file.path));
    });

    it("sets services.forage to values that fit the declared option types", async () => {
      const dir = await writeCaseOutput(join(root, `${name}-types`), input);
      const { host, values } = evaluateHostModule(dir, await casePackagePaths(input));
      expect(values.enable).toBe(true);
      delete values.enable;
      delete values.generated;
      expect(checkOptionValues(host, values)).toEqual([]);
    });
  });
});

function evaluateHostModule(dir: string, paths: string[][]): { host: Record<string, OptionDecl>; values: Record<string, unknown> } {
  const expression = `
    let
      module = import ${nixString(join(dir, "default.nix"))} { config = { }; lib = ${lib}; pkgs = ${standInPkgs(paths.map((path) => ({ path })))}; };
    in {
      host = import ${nixString(join(repoRoot, "modules/options/host.nix"))} { lib = ${lib}; };
      values = module.services.forage;
    }`;
  return nixEvalJson(expression) as { host: Record<string, OptionDecl>; values: Record<string, unknown> };
}

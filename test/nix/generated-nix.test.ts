import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nixOptionFiles } from "../../generator/schema-export/nix-option-files.js";
import { generateCase, goldenCases } from "../golden/cases.js";
import { loadCaseModel } from "../golden/cases.js";
import { writeCaseOutput } from "../support/generated-case.js";
import { nixEvalJson, nixParseFile, nixString, repoRoot } from "../support/nix.js";
import { flakePrelude, packagesByName } from "../support/nixos-routes.js";
import { toolsAvailable } from "../support/tools.js";

const tools = toolsAvailable("nix-instantiate");

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

    it("sets services.forage to values the host module's option types accept (the stand-in module system checks each)", async () => {
      const dir = await writeCaseOutput(join(root, `${name}-types`), input);
      const model = await loadCaseModel(input);
      const forage = evaluateHostOptions(dir, model.host.user);
      expect(forage.enable).toBe(true);
      expect(forage.user).toBe(model.host.user);
      expect(Object.keys(forage.templates as object).sort()).toEqual(model.templates.map((t) => t.name).sort());
    });
  });
});

/**
 * services.forage of a NixOS host that imports the generated default.nix, every value forced (so
 * every one is checked against its declared type); packages by name, never built or instantiated
 * (the host itself never needs an agent's package).
 */
function evaluateHostOptions(dir: string, user: string): Record<string, unknown> {
  return nixEvalJson(`let ${flakePrelude}
    config = (nixpkgs.lib.nixosSystem { modules = [
      self.nixosModules.default (/. + ${nixString(dir)})
      { nixpkgs.hostPlatform = system; system.stateVersion = "25.05"; users.users.${nixString(user)} = { isNormalUser = true; uid = 1000; }; }
    ]; }).config;
  in (${packagesByName}) (removeAttrs config.services.forage [ "generated" ])`) as Record<string, unknown>;
}

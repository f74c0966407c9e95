import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { generateCase, loadCaseModel } from "../golden/cases.js";
import { nixString, standInDir } from "./nix.js";

/** Writes a golden case's generated output under `dir` (so Nix can import it); returns `dir`. */
export async function writeCaseOutput(dir: string, input: string): Promise<string> {
  for (const file of await generateCase(input)) {
    mkdirSync(dirname(join(dir, file.path)), { recursive: true });
    writeFileSync(join(dir, file.path), file.contents);
  }
  return dir;
}

/** Every package attribute path a case refers to: agents' packages and extraPackages. */
export async function casePackagePaths(input: string): Promise<string[][]> {
  const model = await loadCaseModel(input);
  return model.templates.flatMap((t) => [...t.agents.map((a) => a.package), ...t.extraPackages]);
}

/** Nix source for the stand-in `lib`. */
export const standInLib = `(import ${nixString(join(standInDir, "lib"))})`;

/**
 * Nix source for the stand-in package set: its catalogue, plus (replacing catalogue entries at the
 * same path) a fake package at each given path with the given programs.
 */
export function standInPkgs(packages: { path: string[]; bins?: string[] }[] = []): string {
  const specs = packages.map(({ path, bins }) => {
    const binList = bins === undefined ? "" : ` bins = [ ${bins.map(nixString).join(" ")} ];`;
    return `{ path = [ ${path.map(nixString).join(" ")} ];${binList} }`;
  });
  return `(import ${nixString(standInDir)} { fakes = [ ${specs.join(" ")} ]; })`;
}

import { fileURLToPath } from "node:url";
import { loadConfig } from "../../generator/config/load-config.js";
import { generateFiles } from "../../generator/generate.js";
import { resolveModel } from "../../generator/model/resolve.js";
import type { Model } from "../../generator/model/model.js";
import type { GeneratedFile } from "../../generator/targets/generated-file.js";

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** Every golden case: the bundled examples and the feature cases under test/golden/cases/. */
export const goldenCases: { name: string; input: string }[] = [
  { name: "example-quickstart", input: "examples/quickstart/forage.yaml" },
  { name: "example-restricted-claude", input: "examples/restricted-claude/forage.config.ts" },
  { name: "example-multi-agent", input: "examples/multi-agent/forage.yaml" },
  { name: "example-mounts-beads", input: "examples/mounts-beads/forage.json" },
  { name: "hostile-strings", input: "test/golden/cases/hostile-strings/forage.yaml" },
  { name: "inheritance", input: "test/golden/cases/inheritance/forage.yaml" },
];

/** Loads a case's config (path relative to the repo root) and resolves its model. */
export async function loadCaseModel(input: string): Promise<Model> {
  const loaded = await loadConfig(input, repoRoot);
  return resolveModel(loaded.config, input);
}

/** The files the generator produces for a case. */
export async function generateCase(input: string): Promise<GeneratedFile[]> {
  return generateFiles(await loadCaseModel(input));
}

// How long `forage-ctl generate` spends in Forage itself, against the unavoidable cost of reading
// the same YAML config: load (parse + schema + references), resolve, and emit every target.
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { loadConfig } from "../generator/config/load-config.js";
import { generateFiles } from "../generator/generate.js";
import { resolveModel } from "../generator/model/resolve.js";
import { packageRoot } from "../runtime/core/package-root.js";
import { report } from "./run.js";

const root = packageRoot();
const input = "test/golden/cases/inheritance/forage.yaml";
const text = readFileSync(`${root}/${input}`, "utf8");
const loaded = await loadConfig(input, root);
const model = resolveModel(loaded.config, input);

const files = generateFiles(model).length;
await report(
  `generator: ${input} (${model.templates.length} templates, ${files} files)`,
  { name: "yaml.parse of the config (baseline)", run: () => parse(text) },
  [
    { name: "loadConfig (parse + positions + schema + refs)", run: () => loadConfig(input, root) },
    { name: "resolveModel", run: () => resolveModel(loaded.config, input) },
    { name: "generateFiles (all targets)", run: () => generateFiles(model) },
    {
      name: "load + resolve + generate",
      run: async () => generateFiles(resolveModel((await loadConfig(input, root)).config, input)),
    },
  ],
);

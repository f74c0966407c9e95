import type { Model } from "./model/model.js";
import { containerFiles } from "./targets/container-files.js";
import type { GeneratedFile, Target } from "./targets/generated-file.js";
import { nftablesFiles } from "./targets/nftables.js";
import { nixosModuleFile } from "./targets/nixos-module.js";
import { runtimeJsonFile } from "./targets/runtime-json.js";
import { templateFiles } from "./targets/template-files.js";
import { wrapperFiles } from "./targets/wrapper-files.js";

const targets: Target[] = [
  (model) => [nixosModuleFile(model)],
  templateFiles,
  nftablesFiles,
  containerFiles,
  wrapperFiles,
  (model) => [runtimeJsonFile(model)],
];

/** Every file of the generated output, sorted by path. Pure: same model, same bytes. */
export function generateFiles(model: Model): GeneratedFile[] {
  return targets.flatMap((target) => target(model)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

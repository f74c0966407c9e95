import { n, renderNixFile } from "../emit/nix/index.js";
import type { Model } from "../model/model.js";
import type { GeneratedFile } from "./generated-file.js";
import { templateNftFileName } from "./nftables.js";
import { templateValues } from "./nix-values.js";

/**
 * `templates/<name>.nix`: each template's settings as a function of the host's package set.
 *
 * @example
 * { pkgs }:
 * {
 *   description = "Claude Code";
 *   agents = { claude = { package = pkgs.claude-code; … }; };
 *   extraPackages = [ pkgs.python3Packages.black ];
 *   …
 * }
 */
export function templateFiles(model: Model): GeneratedFile[] {
  return model.templates.map((template) => ({
    path: `templates/${template.name}.nix`,
    contents: renderNixFile(model.source, n.fn(["pkgs"], templateValues(template, templateNftFileName(template)))),
  }));
}

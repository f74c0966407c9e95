import { n, renderNixFile, type NixExpr } from "../emit/nix/index.js";
import type { Model } from "../model/model.js";
import type { GeneratedFile } from "./generated-file.js";

/**
 * `wrappers/<name>.nix`: one wrapper derivation per agent of the template (writeShellApplication
 * via `forage.lib.agentWrappers`), each reading its key from `<secretsDir>/<secret>` at run time
 * and exporting it for the agent process only. The same function builds the wrappers inside the
 * container, so `nix build` of this file yields exactly what the sandbox runs.
 *
 * @example
 * { pkgs, forage, secretsDir ? "/run/secrets" }:
 * forage.lib.agentWrappers {
 *   inherit pkgs secretsDir;
 *   agents = (import ../templates/claude.nix { inherit pkgs; }).agents;
 *   promptFiles = (import ../templates/claude.nix { inherit pkgs; }).agentPromptFiles;
 * }
 */
export function wrapperFiles(model: Model): GeneratedFile[] {
  return model.templates.map((template) => {
    const imported = (field: string): NixExpr =>
      n.sel(
        n.call(n.v("import"), n.path(`../templates/${template.name}.nix`), n.bindings([n.inherit(["pkgs"])])),
        field,
      );
    const body = n.call(
      n.sel(n.v("forage"), "lib", "agentWrappers"),
      n.bindings([
        n.inherit(["pkgs", "secretsDir"]),
        n.attr("agents", imported("agents")),
        n.attr("promptFiles", imported("agentPromptFiles")),
      ]),
    );
    const file = n.fn(["pkgs", "forage", { name: "secretsDir", default: n.str(model.host.secretsMountPath) }], body);
    return { path: `wrappers/${template.name}.nix`, contents: renderNixFile(model.source, file) };
  });
}

import { n, renderNixFile } from "../emit/nix/index.js";
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
 * }
 */
export function wrapperFiles(model: Model): GeneratedFile[] {
  return model.templates.map((template) => {
    const agents = n.sel(n.call(n.v("import"), n.path(`../templates/${template.name}.nix`), n.bindings([n.inherit(["pkgs"])])), "agents");
    const body = n.call(n.sel(n.v("forage"), "lib", "agentWrappers"), n.bindings([n.inherit(["pkgs", "secretsDir"]), n.attr("agents", agents)]));
    const file = n.fn(["pkgs", "forage", { name: "secretsDir", default: n.str(model.host.secretsMountPath) }], body);
    return { path: `wrappers/${template.name}.nix`, contents: renderNixFile(model.source, file) };
  });
}

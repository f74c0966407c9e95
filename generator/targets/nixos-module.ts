import { n, renderNixFile, type NixExpr } from "../emit/nix/index.js";
import type { HostModel, Model } from "../model/model.js";
import type { GeneratedFile } from "./generated-file.js";
import { identityValues } from "./nix-values.js";

/**
 * `default.nix`: a NixOS module that sets `services.forage` from the config. Import it next to
 * the flake's `nixosModules.default`.
 *
 * @example
 * { config, lib, pkgs, ... }:
 * {
 *   services.forage = {
 *     enable = true;
 *     generated = ./.;
 *     user = "alice";
 *     …
 *     templates = {
 *       claude = import ./templates/claude.nix { inherit pkgs; };
 *     };
 *   };
 * }
 */
export function nixosModuleFile(model: Model): GeneratedFile {
  const templates = Object.fromEntries(
    model.templates.map((template) => [
      template.name,
      n.call(n.v("import"), n.path(`./templates/${template.name}.nix`), n.bindings([n.inherit(["pkgs"])])),
    ]),
  );
  const settings = n.attrs({
    enable: n.bool(true),
    generated: n.path("./."),
    ...hostValues(model.host),
    templates: n.attrs(templates),
  });
  const module = n.fn(["config", "lib", "pkgs"], n.bindings([n.attr(["services", "forage"], settings)]), {
    ellipsis: true,
  });
  return { path: "default.nix", contents: renderNixFile(model.source, module) };
}

/** The host settings in the shape of `modules/options/host.nix` (defaults applied). */
export function hostValues(host: HostModel): Record<string, NixExpr> {
  return {
    user: n.str(host.user),
    authorizedKeys: n.fromValue(host.authorizedKeys),
    // Paths only: the generator never opens a secret.
    secrets: n.fromValue(host.secrets),
    stateDir: n.str(host.stateDir),
    externalInterface: n.fromValue(host.externalInterface),
    containerUsername: n.str(host.containerUsername),
    workspacePath: n.str(host.workspacePath),
    agentIdentity: identityValues(host.agentIdentity),
    monitor: n.fromValue(host.monitor),
    proxy: n.fromValue(host.proxy),
    network: n.fromValue(host.network),
    approvals: n.fromValue(host.approvals),
    stateVersion: n.str(host.stateVersion),
  };
}

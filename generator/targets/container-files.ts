import { n, renderNixFile, type NixExpr } from "../emit/nix/index.js";
import type { Model, TemplateModel } from "../model/model.js";
import type { GeneratedFile } from "./generated-file.js";

/**
 * `containers/<name>.nix`: the template's container NixOS configuration, in two forms. `module`
 * is what a prebuilt system closure is built from (`forage.lib.templateSystem`), so creating a
 * sandbox later needs no evaluation; `extraContainer` wraps it as an extra-container definition
 * for one sandbox (name and addresses given by forage-ctl).
 *
 * @example
 * { forage, uid ? 1000, gid ? 100 }:
 * let
 *   module = { pkgs, ... }: { imports = [ forage.nixosModules.container ]; forage.sandbox = { … }; };
 * in
 * {
 *   inherit module;
 *   extraContainer = { name, hostAddress, localAddress, hostAddress6 ? null, localAddress6 ? null, workspace, … }:
 *     { containers = …; };
 * }
 */
export function containerFiles(model: Model): GeneratedFile[] {
  return model.templates.map((template) => ({
    path: `containers/${template.name}.nix`,
    contents: renderNixFile(model.source, containerDefinition(model, template)),
  }));
}

/**
 * The workspace (read-only with readOnlyWorkspace) and, when the sandbox has secrets, its
 * secrets directory read-only at /run/secrets; /nix/store is read-only in NixOS containers anyway.
 */
function standardBindMounts(model: Model, template: TemplateModel): NixExpr {
  const workspace = n.attrs({
    [model.host.workspacePath]: n.attrs({ hostPath: n.v("workspace"), isReadOnly: n.bool(template.readOnlyWorkspace) }),
  });
  const secrets = n.ifThen(
    n.eq(n.v("secretsDir"), n.nul),
    n.attrs({}),
    n.attrs({ [model.host.secretsMountPath]: n.attrs({ hostPath: n.v("secretsDir"), isReadOnly: n.bool(true) }) }),
  );
  return n.update(n.update(workspace, secrets), n.v("extraBindMounts"));
}

function containerDefinition(model: Model, template: TemplateModel): NixExpr {
  const sandbox = n.attrs({
    templateName: n.str(template.name),
    template: n.call(n.v("import"), n.path(`../templates/${template.name}.nix`), n.bindings([n.inherit(["pkgs"])])),
    user: n.str(model.host.containerUsername),
    uid: n.v("uid"),
    gid: n.v("gid"),
    workspacePath: n.str(model.host.workspacePath),
    secretsPath: n.str(model.host.secretsMountPath),
    authorizedKeys: n.fromValue(model.host.authorizedKeys),
    stateVersion: n.str(model.host.stateVersion),
  });
  const module = n.fn(
    ["pkgs"],
    n.bindings([
      n.attr("imports", n.list([n.sel(n.v("forage"), "nixosModules", "container")])),
      n.attr(["forage", "sandbox"], sandbox),
    ]),
    { ellipsis: true },
  );
  const container = n.attrs({
    ephemeral: n.bool(true),
    privateNetwork: n.bool(true),
    autoStart: n.bool(false),
    hostAddress: n.v("hostAddress"),
    localAddress: n.v("localAddress"),
    hostAddress6: n.v("hostAddress6"),
    localAddress6: n.v("localAddress6"),
    bindMounts: standardBindMounts(model, template),
    config: n.v("module"),
  });
  const containers = n.call(
    n.sel(n.v("builtins"), "listToAttrs"),
    n.list([n.bindings([n.inherit(["name"]), n.attr("value", container)])]),
  );
  const extraContainer = n.fn(
    [
      "name",
      "hostAddress",
      "localAddress",
      { name: "hostAddress6", default: n.nul },
      { name: "localAddress6", default: n.nul },
      "workspace",
      { name: "secretsDir", default: n.nul },
      { name: "extraBindMounts", default: n.attrs({}) },
    ],
    n.attrs({ containers }),
  );
  return n.fn(
    ["forage", { name: "uid", default: n.int(1000) }, { name: "gid", default: n.int(100) }],
    n.let({ module }, n.bindings([n.inherit(["module"]), n.attr("extraContainer", extraContainer)])),
  );
}

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { extraContainerDefinition } from "../../runtime/backends/extra-container/definition.js";
import { nixString, repoRoot, standInDir } from "./nix.js";

/*
 * The four ways a template's generated container system reaches NixOS, as Nix expressions over the
 * stand-in nixpkgs (test/nix/stand-in: its lib, module system and NixOS modules) and this
 * repository's real flake.nix. Each evaluates to the `.drvPath` of the system it builds, so
 * evaluating it runs NixOS's assertions, option types and unfree checks on that system.
 */
export type Route = "host-module" | "template-system" | "nixos-container" | "extra-container";
export const routes: Route[] = ["host-module", "template-system", "nixos-container", "extra-container"];

export interface RouteCase {
  /** Directory holding `forage-ctl generate`'s output. */
  generated: string;
  templates: string[];
  /** The host user (services.forage.user), declared on the host as a normal user. */
  user: string;
  /** Scratch directory for files a route writes (extra-container definitions). */
  scratch: string;
}

const system = "x86_64-linux";

/** The stand-in nixpkgs flake, and Forage's flake evaluated with it as its `nixpkgs` input. */
export const flakePrelude = `
  nixpkgs = import ${nixString(join(standInDir, "flake-outputs.nix"))};
  self = (import ${nixString(join(repoRoot, "flake.nix"))}).outputs { inherit self nixpkgs; } // { outPath = ${nixString(repoRoot)}; };
  system = ${nixString(system)};`;

/**
 * Nix source of a function that forces a value for JSON, showing packages by name: their store
 * paths are not what a test reads, and the host itself never instantiates an agent's package.
 */
export const packagesByName =
  'let describe = v: if (v.type or null) == "derivation" then "<package ${(builtins.parseDrvName (v.pname or v.name)).name}>" else if builtins.isAttrs v then builtins.mapAttrs (_: describe) v else if builtins.isList v then map describe v else v; in describe';

/** A NixOS host with the user declared as NixOS declares a normal user (uid 1000, group users). */
function hostExpression(user: string, modules: string): string {
  return `(nixpkgs.lib.nixosSystem { modules = [
    { nixpkgs.hostPlatform = system; system.stateVersion = "25.05"; users.users.${nixString(user)} = { isNormalUser = true; uid = 1000; }; }
    ${modules}
  ]; }).config`;
}

/** `forage-ctl generate`'s output as a Nix path (the host module copies it into the store). */
function generatedPath(routeCase: RouteCase): string {
  return `(/. + ${nixString(routeCase.generated)})`;
}

/** Nix expression: an attribute set of the systems a route builds (name → drvPath). */
export function routeExpression(route: Route, routeCase: RouteCase): string {
  const generated = generatedPath(routeCase);
  const names = routeCase.templates.map((template, index) => ({ template, container: `f${index + 1}` }));
  const perTemplate = (body: (template: string, container: string) => string): string =>
    names.map(({ template, container }) => `${nixString(template)} = ${body(template, container)};`).join("\n");
  switch (route) {
    case "host-module":
      return `let host = ${hostExpression(routeCase.user, `self.nixosModules.default (${generated} + "/default.nix")`)}; in {
        host = host.system.build.toplevel.drvPath;
        ${perTemplate((template) => `host.environment.etc.${nixString(`forage/systems/${template}`)}.source.drvPath`)}
      }`;
    case "template-system":
      return `{ ${perTemplate((template) => `(self.lib.templateSystem { inherit system; generated = ${generated}; template = ${nixString(template)}; }).drvPath`)} }`;
    case "nixos-container": {
      const containers = names.map(
        ({ template, container }, index) =>
          `((import (${generated} + "/containers/${template}.nix") { forage = self; uid = 1000; gid = 100; }).extraContainer {
            name = "${container}"; hostAddress = "10.100.${index + 1}.1"; localAddress = "10.100.${index + 1}.2"; workspace = "/var/lib/forage/workspaces/w${index + 1}";
          }).containers`,
      );
      return `let host = ${hostExpression(routeCase.user, `{ containers = ${containers.join(" // ")}; }`)}; in {
        host = host.system.build.toplevel.drvPath;
        ${perTemplate((_, container) => `host.containers.${container}.path.drvPath`)}
      }`;
    }
    case "extra-container":
      return `{ ${perTemplate((template, container) => extraContainerSystem(routeCase, template, container))} }`;
  }
}

/**
 * What `extra-container create` builds from forage-ctl's per-sandbox definition: the file as a
 * NixOS module of an outer system (here with a Debian-like host user: uid 1000, private group 1000).
 */
function extraContainerSystem(routeCase: RouteCase, template: string, container: string): string {
  mkdirSync(routeCase.scratch, { recursive: true });
  const file = join(routeCase.scratch, `${container}.nix`);
  writeFileSync(
    file,
    extraContainerDefinition({
      sandbox: `demo-${container}`,
      template,
      generatedDir: routeCase.generated,
      modulesDir: join(repoRoot, "modules"),
      containerName: container,
      hostAddress: "10.100.9.1",
      localAddress: "10.100.9.2",
      hostAddress6: "fd66:a64:9::1",
      localAddress6: "fd66:a64:9::2",
      uid: 1000,
      gid: 1000,
      workspace: "/home/alice/src/demo",
      secretsDir: "/run/forage-secrets/demo",
      extraBindMounts: {},
    }),
  );
  return `((import ${nixString(join(standInDir, "nixos/lib/eval-config.nix"))} {
    modules = [ (import ${nixString(file)}) { nixpkgs.hostPlatform = system; system.stateVersion = "25.05"; } ];
  }).config.containers.${container}.path.drvPath)`;
}

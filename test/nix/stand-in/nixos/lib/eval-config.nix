# Stand-in for nixos/lib/eval-config.nix: a NixOS system from modules. `system` (null: the
# platform comes from a module, e.g. nixpkgs.hostPlatform) sets nixpkgs.system; `pkgs` sets
# nixpkgs.pkgs, after which nixpkgs.config is refused.
{
  system ? builtins.currentSystem,
  pkgs ? null,
  lib ? import ../../lib,
  baseModules ? import ../modules/module-list.nix,
  extraModules ? [ ],
  specialArgs ? { },
  modules,
  prefix ? [ ],
}:
let
  pkgsModule = {
    _file = "nixos/lib/eval-config.nix";
    config = lib.mkMerge (lib.optional (system != null) { nixpkgs.system = lib.mkDefault system; } ++ lib.optional (pkgs != null) { nixpkgs.pkgs = pkgs; });
  };
  evaluated = lib.evalModules {
    inherit prefix;
    specialArgs = { modulesPath = toString ../modules; } // specialArgs;
    modules = baseModules ++ extraModules ++ [ pkgsModule ] ++ modules;
  };
in
evaluated // { pkgs = evaluated._module.args.pkgs; inherit lib; }

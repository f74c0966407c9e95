# Stand-in for nixpkgs' top level (`import <nixpkgs> { config; overlays; localSystem; }`), see
# README.md: the catalogue's fake packages (checked against `config` for unfree licenses), the
# host's real tmux, the build helpers Forage uses, `path` (this tree, whose nixos/lib/eval-config.nix
# the host module and nixos-containers import), overlays, callPackage and appendOverlays.
# `fakes` adds test-specific fake packages ({ path; bins; … } as in the catalogue).
{
  config ? { },
  overlays ? [ ],
  localSystem ? builtins.currentSystem,
  system ? null,
  fakes ? [ ],
}:
let
  lib = import ./lib;
  platform = if system != null then system else if builtins.isString localSystem then localSystem else localSystem.system;
  # The evaluated config, as pkgs/top-level/config.nix gives it: declared defaults, the rest as given.
  evaluatedConfig = { allowUnfree = false; allowUnfreePackages = [ ]; } // config;
  fakePackage = import ./pkgs/fake-package.nix { inherit lib; config = evaluatedConfig; system = platform; };
  hostTools = import ./pkgs/host-tools.nix { system = platform; };
  catalogue = builtins.foldl' (set: spec: lib.recursiveUpdate set (lib.setAttrByPath spec.path (fakePackage spec))) { } (import ./pkgs/catalogue.nix { inherit lib; } ++ fakes);

  base = self: catalogue // hostTools // {
    inherit lib;
    path = ./.;
    config = evaluatedConfig;
    overlays = overlays;
    stdenv.hostPlatform = { system = platform; };
    callPackage = fn: args: let f = if builtins.isFunction fn then fn else import fn; in f (builtins.intersectAttrs (builtins.functionArgs f) self // args);
    appendOverlays = more: import ./. { inherit config localSystem fakes; overlays = overlays ++ more; };
    extend = overlay: self.appendOverlays [ overlay ];
    importNpmLock = import ./pkgs/import-npm-lock.nix { inherit lib; pkgs = self; };
    buildNpmPackage = import ./pkgs/build-npm-package.nix { inherit lib; pkgs = self; };
    nodejs = self.nodejs_22;
  };
  packageSet = lib.fix (self: builtins.foldl' (acc: overlay: acc // overlay self acc) (base self) overlays);
in
packageSet

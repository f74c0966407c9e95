# Stands in for the nixpkgs flake as an input of Forage's flake.nix: `lib` with `nixosSystem`
# (eval-config with system = null unless given) and `legacyPackages.<system>`.
let
  lib = import ./lib;
  systems = [ "x86_64-linux" "aarch64-linux" ];
in
{
  outPath = toString ./.;
  lib = lib // {
    nixosSystem = args: import ./nixos/lib/eval-config.nix ({ system = null; } // args);
  };
  legacyPackages = lib.genAttrs systems (system: import ./. { localSystem = system; });
}

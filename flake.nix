{
  description = "Forage: disposable, network-restricted Linux sandboxes for AI coding agents";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";

  outputs =
    { self, nixpkgs }:
    let
      systems = [
        "x86_64-linux"
        "aarch64-linux"
      ];
      forAllSystems = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
      forageLib = import ./modules/lib { inherit (nixpkgs) lib; };
    in
    {
      packages = forAllSystems (pkgs: rec {
        forage-ctl = pkgs.callPackage ./nix/package.nix { };
        default = forage-ctl;
      });

      apps = forAllSystems (pkgs: rec {
        forage-ctl = {
          type = "app";
          program = pkgs.lib.getExe self.packages.${pkgs.stdenv.hostPlatform.system}.forage-ctl;
        };
        default = forage-ctl;
      });

      nixosModules = {
        # The host side: services.forage. Import the generated default.nix next to it.
        default =
          { lib, pkgs, ... }:
          {
            imports = [ ./modules ];
            services.forage.package = lib.mkDefault self.packages.${pkgs.stdenv.hostPlatform.system}.forage-ctl;
          };
        # The inside of every sandbox; used by generated containers/<template>.nix.
        container = ./modules/container;
      };

      lib = forageLib // {
        # A template's container system, pre-built so creating a sandbox needs no evaluation:
        #   forage.lib.templateSystem { system = "x86_64-linux"; generated = ./forage-generated; template = "claude"; }
        templateSystem =
          {
            system,
            generated,
            template,
            uid ? 1000,
            gid ? 100,
            overlays ? [ ],
          }:
          (nixpkgs.lib.nixosSystem {
            modules = [
              (import "${generated}/containers/${template}.nix" {
                forage = self;
                inherit uid gid;
              }).module
              {
                nixpkgs.hostPlatform = system;
                nixpkgs.overlays = overlays;
              }
            ];
          }).config.system.build.toplevel;
      };

      devShells = forAllSystems (pkgs: {
        default = pkgs.mkShell {
          packages = with pkgs; [
            nodejs
            nix
            nftables
            iproute2
            git
            jujutsu
            nixfmt
          ];
        };
      });

      formatter = forAllSystems (pkgs: pkgs.nixfmt-tree);

      checks = forAllSystems (pkgs: {
        package = self.packages.${pkgs.stdenv.hostPlatform.system}.forage-ctl;
        vm = import ./test/nixos/vm-test.nix {
          inherit pkgs;
          forage = self;
        };
      });
    };
}

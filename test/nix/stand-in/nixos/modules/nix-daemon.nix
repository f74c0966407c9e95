# Stand-in for nixos/modules/services/system/nix-daemon.nix: while Nix is enabled (the default,
# containers included) the build users nixbld1…N exist with the static uids 30001…30000+N.
{ config, lib, ... }:
let
  cfg = config.nix;
in
{
  options.nix = {
    enable = lib.mkOption { type = lib.types.bool; default = true; description = "Whether to enable Nix."; };
    nrBuildUsers = lib.mkOption { type = lib.types.int; default = 32; description = "Number of nixbld build users."; };
  };
  config = lib.mkIf cfg.enable {
    users.users = builtins.listToAttrs (builtins.genList (i: {
      name = "nixbld${toString (i + 1)}";
      value = {
        uid = config.ids.uids.nixbld + i + 1;
        isSystemUser = true;
        group = "nixbld";
        extraGroups = [ "nixbld" ];
        description = "Nix build user ${toString (i + 1)}";
      };
    }) cfg.nrBuildUsers);
  };
}

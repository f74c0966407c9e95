# Stand-in for nixos/modules/misc/assertions.nix: what a module may refuse. The system's toplevel
# (top-level.nix) fails with every failed assertion's message, as NixOS's does.
{ lib, ... }:
{
  options.assertions = lib.mkOption {
    type = lib.types.listOf lib.types.unspecified;
    internal = true;
    default = [ ];
    description = "Conditions that must hold, each { assertion; message; }.";
  };
  options.warnings = lib.mkOption {
    type = lib.types.listOf lib.types.str;
    internal = true;
    default = [ ];
    description = "Messages printed when the system is built.";
  };
}

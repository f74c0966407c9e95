# Stand-in for nixos/modules/system/activation/top-level.nix: system.build.toplevel, the store
# path a NixOS system is. Building it refuses the system with every failed assertion's message
# (the real text: "Failed assertions:" then "- message" lines), prints the warnings, and depends on
# every package and /etc file, so an unfree package that is not allowed is refused too.
{ config, lib, pkgs, ... }:
let
  failed = map (x: x.message) (builtins.filter (x: !x.assertion) config.assertions);
  etcFiles = builtins.filter (file: file.enable) (builtins.attrValues config.environment.etc);
  services = builtins.filter (service: service.enable) (builtins.attrValues config.systemd.services);
  system = derivation {
    name = "nixos-system-${config.networking.hostName}";
    system = pkgs.stdenv.hostPlatform.system;
    builder = "/bin/sh";
    args = [ "-c" "echo stand-in > $out" ];
    packages = config.environment.systemPackages;
    etc = map (file: "${file.target}=${file.source}") etcFiles;
    units = builtins.toJSON (map (service: service.serviceConfig // { inherit (service) path environment; }) services);
    containers = map (container: container.path) (builtins.attrValues (config.containers or { }));
    stateVersion = config.system.stateVersion;
  };
in
{
  options.system = {
    stateVersion = lib.mkOption { type = lib.types.str; description = "The NixOS release the system's state was first created with."; };
    build = lib.mkOption {
      type = lib.types.submoduleWith { modules = [ { freeformType = lib.types.lazyAttrsOf lib.types.unspecified; } ]; };
      default = { };
      description = "Attributes of the system's build.";
    };
  };
  config.system.build.toplevel =
    if failed != [ ] then
      throw "\nFailed assertions:\n${lib.concatStringsSep "\n" (map (message: "- ${message}") failed)}"
    else
      builtins.foldl' (result: warning: builtins.trace "evaluation warning: ${warning}" result) system config.warnings;
}

# Stand-in for the small NixOS options Forage sets: boot.isContainer (nixos-containers.nix),
# security.sudo/doas, networking (hostName, firewall, nftables, nat), environment.systemPackages and
# environment.etc, with the types of the real declarations.
{ config, lib, pkgs, ... }:
let
  inherit (lib) mkOption types;
  etcOptions = { name, config, ... }: {
    options = {
      enable = mkOption { type = types.bool; default = true; description = "Whether the file is created."; };
      target = mkOption { type = types.str; default = name; description = "Path under /etc."; };
      text = mkOption { type = types.nullOr types.lines; default = null; description = "Contents of the file."; };
      source = mkOption { type = types.path; description = "The file or directory linked or copied."; };
      mode = mkOption { type = types.str; default = "symlink"; description = "\"symlink\" or an octal mode (the file is copied)."; };
    };
    config.source = lib.mkIf (config.text != null) (lib.mkDefault (pkgs.writeText "etc-${builtins.baseNameOf name}" config.text));
  };
in
{
  options = {
    boot.isContainer = mkOption { type = types.bool; default = config.boot.isNspawnContainer; description = "Whether this system runs in a container."; };
    boot.isNspawnContainer = mkOption { type = types.bool; default = false; description = "Whether this system runs in a systemd-nspawn container."; };
    security.sudo.enable = mkOption { type = types.bool; default = true; description = "Whether to enable sudo."; };
    security.doas.enable = mkOption { type = types.bool; default = false; description = "Whether to enable doas."; };
    networking = {
      hostName = mkOption { type = types.strMatching "^$|^[[:alnum:]]([[:alnum:]_-]{0,61}[[:alnum:]])?$"; default = "nixos"; description = "The host name."; };
      useDHCP = mkOption { type = types.bool; default = true; description = "Whether to use DHCP."; };
      firewall.enable = mkOption { type = types.bool; default = true; description = "Whether to enable the firewall."; };
      firewall.allowedTCPPorts = mkOption { type = types.listOf types.port; default = [ ]; description = "TCP ports the firewall opens."; };
      nftables.enable = mkOption { type = types.bool; default = false; description = "Whether to enable nftables."; };
      nftables.ruleset = mkOption { type = types.lines; default = ""; description = "The nftables ruleset."; };
      nat.enable = mkOption { type = types.bool; default = false; description = "Whether to enable NAT."; };
      nat.externalInterface = mkOption { type = types.nullOr types.str; default = null; description = "The external interface."; };
      nat.internalInterfaces = mkOption { type = types.listOf types.str; default = [ ]; description = "Interfaces whose traffic is masqueraded."; };
    };
    environment.systemPackages = mkOption { type = types.listOf types.package; default = [ ]; description = "Packages in the system profile."; };
    environment.etc = mkOption { type = types.attrsOf (types.submodule etcOptions); default = { }; description = "Files in /etc."; };
  };
}

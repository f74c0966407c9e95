# Stand-in for nixos/modules/virtualisation/nixos-containers.nix: containers.<name> with the
# real option types, and each container's `config` evaluated as a NixOS system of its own — with
# the eval-config of containers.<name>.nixpkgs, no `pkgs` given (so it makes its own package set
# from its own nixpkgs.config: the host's config and overlays are not inherited), only the host's
# platform passed on, boot.isNspawnContainer set. The container's assertions apply when its
# toplevel is built (the host's toplevel depends on it). The 11-character name limit with a
# private network is applied always, as under extra-container and on hosts with kernels ≤ 5.8.
{ config, lib, pkgs, ... }:
let
  inherit (lib) mkOption types;
  hostPlatform = pkgs.stdenv.hostPlatform;

  bindMountOptions = { name, ... }: {
    options = {
      mountPoint = mkOption { type = types.str; default = name; description = "Mount point in the container."; };
      hostPath = mkOption { type = types.nullOr types.str; default = null; description = "Host path; null binds the same path."; };
      isReadOnly = mkOption { type = types.bool; default = true; description = "Whether the mount is read-only."; };
    };
  };

  containerOptions = { name, config, options, ... }:
    let
      extraConfig = {
        _file = "module at nixos-containers.nix (container ${name})";
        nixpkgs.hostPlatform = hostPlatform;
        boot.isNspawnContainer = true;
        networking.hostName = lib.mkDefault name;
        networking.useDHCP = false;
        assertions = [
          {
            assertion = !config.privateNetwork || builtins.stringLength name <= 11;
            message = "Container name `${name}` is too long: When `privateNetwork` is enabled, container names can\nnot be longer than 11 characters, because the container's interface name is derived from it.";
          }
          {
            assertion = builtins.match ".*_.*" name == null;
            message = "Names containing underscores are not allowed in nixos-containers. Please rename the container '${name}'";
          }
        ];
      };
      systemType = types.mkOptionType {
        name = "Toplevel NixOS config";
        description = "Toplevel NixOS config";
        merge = _: defs: (import "${config.nixpkgs}/nixos/lib/eval-config.nix" {
          modules = [ extraConfig ] ++ map (def: { _file = def.file; imports = [ def.value ]; }) defs;
          prefix = [ "containers" name ];
          inherit (config) specialArgs;
          system = null;
        }).config;
      };
    in
    {
      options = {
        config = mkOption { type = systemType; description = "The container's NixOS configuration."; };
        path = mkOption { type = types.path; description = "The container's system (its toplevel)."; };
        nixpkgs = mkOption { type = types.path; default = pkgs.path; description = "The nixpkgs whose modules, pkgs and lib evaluate the container."; };
        specialArgs = mkOption { type = types.attrsOf types.unspecified; default = { }; description = "Special arguments for the container's modules."; };
        ephemeral = mkOption { type = types.bool; default = false; description = "Whether the container's root is discarded at stop."; };
        privateNetwork = mkOption { type = types.bool; default = false; description = "Whether the container has its own network namespace."; };
        autoStart = mkOption { type = types.bool; default = false; description = "Whether the container starts at boot."; };
        hostAddress = mkOption { type = types.nullOr types.str; default = null; description = "IPv4 address of the host's end of the link."; };
        localAddress = mkOption { type = types.nullOr types.str; default = null; description = "IPv4 address of the container's end."; };
        hostAddress6 = mkOption { type = types.nullOr types.str; default = null; description = "IPv6 address of the host's end."; };
        localAddress6 = mkOption { type = types.nullOr types.str; default = null; description = "IPv6 address of the container's end."; };
        bindMounts = mkOption { type = types.attrsOf (types.submodule bindMountOptions); default = { }; description = "Host paths bound into the container."; };
        extraFlags = mkOption { type = types.listOf types.str; default = [ ]; description = "Extra systemd-nspawn flags."; };
        additionalCapabilities = mkOption { type = types.listOf types.str; default = [ ]; description = "Extra capabilities."; };
      };
      config.path = lib.mkIf options.config.isDefined config.config.system.build.toplevel;
    };
in
{
  options.containers = mkOption {
    type = types.attrsOf (types.submodule containerOptions);
    default = { };
    description = "Declarative NixOS containers.";
  };
}

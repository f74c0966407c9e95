# Stand-in for nixos/modules/misc/nixpkgs.nix: where a system's `pkgs` comes from. Either given
# (nixpkgs.pkgs; nixpkgs.config is then refused, as the real module refuses it) or made from this
# stand-in nixpkgs with the system's own nixpkgs.config and overlays for nixpkgs.hostPlatform.
# nixpkgs.config definitions combine as the real ones do: the first definition of a key wins,
# lists are concatenated.
{ config, options, lib, ... }:
let
  inherit (lib) mkOption types;
  cfg = config.nixpkgs;
  mergeConfig = defs: builtins.foldl' (merged: def: merged // lib.mapAttrs (name: value:
    if merged ? ${name} && builtins.isList merged.${name} then merged.${name} ++ value
    else if merged ? ${name} then merged.${name} else value) def.value) { } defs;
  configType = types.mkOptionType { name = "nixpkgs-config"; description = "nixpkgs config"; check = builtins.isAttrs; merge = _: mergeConfig; };
  platform = if options.nixpkgs.hostPlatform.isDefined then cfg.hostPlatform
    else if options.nixpkgs.system.isDefined then cfg.system
    else throw "Neither nixpkgs.hostPlatform nor the legacy option nixpkgs.system has been set.";
in
{
  options.nixpkgs = {
    pkgs = mkOption { type = types.mkOptionType { name = "nixpkgs"; description = "An evaluation of Nixpkgs"; check = builtins.isAttrs; merge = lib.mergeOneOption; }; description = "A package set the system uses instead of making one."; };
    config = mkOption { type = configType; default = { }; description = "The nixpkgs config the system's package set is made with."; };
    overlays = mkOption { type = types.listOf (types.functionTo (types.functionTo types.attrs)); default = [ ]; description = "Overlays applied to the package set."; };
    hostPlatform = mkOption { type = types.either types.str types.attrs; apply = p: if builtins.isString p then p else p.system; description = "The platform the system runs on."; };
    system = mkOption { type = types.str; description = "The platform (legacy option)."; };
  };
  config = {
    _module.args.pkgs =
      if options.nixpkgs.pkgs.isDefined then cfg.pkgs.appendOverlays cfg.overlays
      else import ../.. { inherit (cfg) config overlays; localSystem = platform; };
    assertions = [
      {
        assertion = !options.nixpkgs.pkgs.isDefined || cfg.config == { };
        message = "Your system configures nixpkgs with an externally created instance.\n`nixpkgs.config` options should be passed when creating the instance instead.\n\nCurrent value:\n${builtins.toJSON (builtins.attrNames cfg.config)}";
      }
    ];
  };
}

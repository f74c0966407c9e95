# Template options set by the generator, not by users.
{ lib, ... }:
{
  options.nftablesRuleset = lib.mkOption {
    type = lib.types.nullOr lib.types.path;
    default = null;
    internal = true;
    description = "Generated in-container nftables file for the template's network mode.";
  };
}

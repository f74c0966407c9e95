# Defence in depth only: the generated in-container nftables table for "none" and "restricted".
# The policy that counts is enforced on the host side of the sandbox's link, where root in the
# sandbox cannot reach it.
{ config, lib, ... }:
let
  cfg = config.forage.sandbox;
  ruleset = cfg.template.nftablesRuleset;
in
{
  networking.firewall.enable = false;
  networking.nftables = lib.mkIf (ruleset != null) {
    enable = true;
    ruleset = builtins.readFile ruleset;
  };
}

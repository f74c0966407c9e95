# Agents: each gets a wrapper on PATH that supplies its key from the read-only secrets mount for
# its own process only. The wrapper takes precedence over the package's own binary of the same name.
{ config, options, lib, pkgs, ... }:
let
  cfg = config.forage.sandbox;
  forageLib = import ../lib { inherit lib; };
  agents = cfg.template.agents;
  wrappers = forageLib.agentWrappers {
    inherit pkgs agents;
    secretsDir = cfg.secretsPath;
    promptFiles = cfg.template.agentPromptFiles;
  };
  agentPackageNames = map (agent: lib.getName agent.package) (builtins.attrValues agents);
  claudeSettings = lib.findFirst (s: s != null) null (
    map (agent: forageLib.claudeManagedSettings agent.permissions) (builtins.attrValues agents)
  );
in
{
  environment.systemPackages =
    map lib.hiPrio (builtins.attrValues wrappers)
    ++ map (agent: lib.lowPrio agent.package) (builtins.attrValues agents);

  # nixpkgs refuses unfree packages unless they are allowed, and claude-code is unfree. The
  # template's agents are what the user chose to run, so exactly their packages are allowed, nothing
  # else. When the system is given a package set (nixpkgs.pkgs) NixOS refuses nixpkgs.config: that
  # package set's own config must allow them.
  nixpkgs.config = lib.mkIf (!options.nixpkgs.pkgs.isDefined) {
    allowUnfreePredicate = pkg: builtins.elem (lib.getName pkg) agentPackageNames;
  };

  environment.etc."claude-code/managed-settings.json" = lib.mkIf (claudeSettings != null) {
    text = claudeSettings;
    mode = "0444";
  };
}

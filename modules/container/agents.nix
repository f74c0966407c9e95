# Agents: each gets a wrapper on PATH that supplies its key from the read-only secrets mount for
# its own process only. The wrapper takes precedence over the package's own binary of the same name.
{ config, lib, pkgs, ... }:
let
  cfg = config.forage.sandbox;
  forageLib = import ../lib { inherit lib; };
  agents = cfg.template.agents;
  wrappers = forageLib.agentWrappers {
    inherit pkgs agents;
    secretsDir = cfg.secretsPath;
  };
  claudeSettings = lib.findFirst (s: s != null) null (
    map (agent: forageLib.claudeManagedSettings agent.permissions) (builtins.attrValues agents)
  );
in
{
  environment.systemPackages =
    map lib.hiPrio (builtins.attrValues wrappers)
    ++ map (agent: lib.lowPrio agent.package) (builtins.attrValues agents);

  environment.etc."claude-code/managed-settings.json" = lib.mkIf (claudeSettings != null) {
    text = claudeSettings;
    mode = "0444";
  };
}

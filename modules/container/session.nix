# The agent's tmux session, started once the container is up: one window per agent, or the
# template's tmuxWindows. The host attaches to it with `forage-ctl attach`.
{ config, lib, pkgs, ... }:
let
  cfg = config.forage.sandbox;
  forageLib = import ../lib { inherit lib; };
  windows =
    if cfg.template.tmuxWindows != null then
      cfg.template.tmuxWindows
    else
      map (name: { inherit name; command = name; }) (builtins.attrNames cfg.template.agents);
  session = forageLib.tmuxSessionScript {
    inherit pkgs windows;
    inherit (cfg) workspacePath;
  };
in
{
  systemd.services.forage-session = {
    description = "Forage agent tmux session";
    wantedBy = [ "multi-user.target" ];
    after = [ "network.target" ];
    serviceConfig = {
      Type = "forking";
      User = cfg.user;
      WorkingDirectory = cfg.workspacePath;
      ExecStart = lib.getExe session;
      Restart = "no";
      # The agents run here, started by the container's systemd rather than through forage-enter.
    } // forageLib.seccompServiceConfig cfg.template;
  };
}

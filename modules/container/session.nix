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
  # The agents run in this session, started by the container's systemd rather than through
  # forage-enter, so it gets the same filter from systemd (systemd.exec(5)). Namespace creation
  # is refused by RestrictNamespaces (which judges clone/unshare/setns by their flags and answers
  # clone3 with ENOSYS), not by name: refusing clone by name would refuse every fork.
  namespaceCalls = [ "unshare" "setns" "clone" "clone3" ];
  denied = builtins.filter (call: !(builtins.elem call namespaceCalls)) (if cfg.template.seccompDenied == null then [ ] else cfg.template.seccompDenied);
  namespacesAllowed = cfg.template.seccompDenied != null && !(builtins.elem "unshare" cfg.template.seccompDenied);
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
      NoNewPrivileges = true;
      LockPersonality = true;
      RestrictNamespaces = !namespacesAllowed;
      # Other ABIs (i386's int 0x80, x32) are refused: the filter's names are the native ones.
      SystemCallArchitectures = "native";
      SystemCallErrorNumber = "EPERM";
    } // lib.optionalAttrs (denied != [ ]) {
      SystemCallFilter = "~" + lib.concatStringsSep " " denied;
    };
  };
}

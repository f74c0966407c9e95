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
  # The home seed forage-ctl writes under the secrets mount (the agent's git and jj identity,
  # stand-in login files, links to its context), copied before the agents start so they find
  # them (runtime/provision/home-seed.ts); `/.` copies the directory's contents, links as links.
  # (NixOS puts coreutils on every service's PATH.)
  homeSeed = pkgs.writeShellApplication {
    name = "forage-home-seed-copy";
    runtimeInputs = [ ];
    text = ''
      seed=${lib.escapeShellArg "${cfg.secretsPath}/_home"}
      if [ -d "$seed" ]; then cp -r -- "$seed/." "$HOME/"; fi
    '';
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
      # Both under the sandbox's own seccomp filter (forage-enter, bound in by forage-ctl), as every
      # process forage-ctl starts inside is; systemd's filter below stays as an outer layer.
      ExecStartPre = lib.getExe (
        forageLib.sandboxEntry.underFilter {
          inherit pkgs;
          name = "forage-home-seed";
          command = lib.getExe homeSeed;
        }
      );
      ExecStart = lib.getExe (
        forageLib.sandboxEntry.underFilter {
          inherit pkgs;
          name = "forage-session";
          command = lib.getExe session;
        }
      );
      Restart = "no";
    } // forageLib.seccompServiceConfig cfg.template;
  };
}

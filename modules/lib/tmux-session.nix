# The script that opens the sandbox's tmux session `forage`, one window per entry, each running
# its command as the agent in the workspace. Windows stay open after their command exits so the
# user can read what happened.
{ lib }:
{
  pkgs,
  windows,
  workspacePath,
}:
let
  tmux = lib.getExe pkgs.tmux;
  first = builtins.head windows;
  newSession = lib.escapeShellArgs [ tmux "new-session" "-d" "-s" "forage" "-n" first.name "-c" workspacePath first.command ];
  newWindow = window: lib.escapeShellArgs [ tmux "new-window" "-t" "forage" "-n" window.name "-c" workspacePath window.command ];
  emptySession = lib.escapeShellArgs [ tmux "new-session" "-d" "-s" "forage" "-n" "shell" "-c" workspacePath ];
in
pkgs.writeShellApplication {
  name = "forage-tmux-session";
  runtimeInputs = [ ];
  text =
    if windows == [ ] then
      emptySession
    else
      lib.concatStringsSep "\n" (
        [
          newSession
          # Global window option: applies to the first window and every window opened after it.
          (lib.escapeShellArgs [ tmux "set-option" "-wg" "remain-on-exit" "on" ])
        ]
        ++ map newWindow (builtins.tail windows)
      );
}

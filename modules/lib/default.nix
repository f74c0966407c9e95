# Helpers shared by the host module, the container module, generated files and the flake.
{ lib }:
let
  mkAgentWrapper = import ./agent-wrapper.nix { inherit lib; };
in
{
  inherit mkAgentWrapper;
  agentWrappers = import ./agent-wrappers.nix { inherit lib mkAgentWrapper; };
  hostAssertions = import ./host-assertions.nix { inherit lib; };
  hostWarnings = import ./host-warnings.nix { inherit lib; };
  hostTmpfiles = import ./host-tmpfiles.nix { inherit lib; };
  tmuxSessionScript = import ./tmux-session.nix { inherit lib; };
  seccompServiceConfig = import ./seccomp-service-config.nix { inherit lib; };
  sandboxEntry = import ./sandbox-entry.nix { inherit lib; };
  claudeManagedSettings = import ./claude-managed-settings.nix { inherit lib; };
}

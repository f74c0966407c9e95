# How a NixOS sandbox's own services run what the agent runs: through forage-enter with the
# sandbox's seccomp program, both bound in read-only by forage-ctl at every start (the paths are
# runtime/seccomp/sandbox-filter.ts's enterMountPath and filterMountPath). That is the filter every
# process forage-ctl starts inside gets (exec, attach, init commands) — not systemd's
# SystemCallFilter, which cannot judge an ioctl's request (btrfs subvolumes, TIOCSTI) nor refuse one
# namespace call alone. Missing (a container not started by forage-ctl), nothing is run.
{ lib }:
let
  enter = "/run/forage/enter";
  filter = "/run/forage/seccomp.bpf";
  # Shell text of the check and the exec; the command is a store path (data, quoted).
  prelude = ''
    if [ ! -x ${enter} ] || [ ! -f ${filter} ]; then
      echo "forage: ${enter} or ${filter} is missing: a sandbox runs only as forage-ctl starts it" >&2
      exit 126
    fi
  '';
in
{
  inherit enter filter;

  # A program that runs `command` (an absolute path) with its arguments under the sandbox's filter.
  underFilter =
    { pkgs, name, command }:
    pkgs.writeShellApplication {
      inherit name;
      runtimeInputs = [ ];
      text = prelude + ''
        exec ${enter} ${filter} ${lib.escapeShellArg command} "$@"
      '';
    };

  # The agent's login shell: bash under the filter, so what sshd or tmux start as the agent's
  # shell runs under it too. A login (no arguments: sshd's interactive session, a tmux window)
  # is a login shell; a command (`-c …`, sshd's exec and subsystems) is passed on as given.
  loginShell =
    { pkgs, bash }:
    pkgs.writeShellApplication {
      name = "forage-login-shell";
      runtimeInputs = [ ];
      text = prelude + ''
        if [ "$#" -eq 0 ]; then exec ${enter} ${filter} ${lib.escapeShellArg bash} -l; fi
        exec ${enter} ${filter} ${lib.escapeShellArg bash} "$@"
      '';
    }
    // { shellPath = "/bin/forage-login-shell"; };
}

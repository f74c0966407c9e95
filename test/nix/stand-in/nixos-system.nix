# Stand-in for a Forage template's NixOS container system (see README.md): nixpkgs cannot be
# fetched here, so this store path has only the shape forage-ctl boots — `init` run as PID 1 on a
# root that holds nothing but /nix/store, and the tools under `sw/bin` — built from the host's
# own binaries and their shared libraries, started through the copied dynamic loader.
{ user ? "agent", uid, gid, workspacePath ? "/workspace" }:
derivation {
  name = "forage-stand-in-system";
  system = builtins.currentSystem;
  builder = "/bin/sh";
  args = [ ./build-nixos-system.sh ];
  PATH = "/usr/bin:/bin";
  inherit user workspacePath;
  uid = toString uid;
  gid = toString gid;
  # Host programs copied with their libraries (what the runtime and the tests run inside).
  programs = "bash env setpriv script stty tmux id cat ls sleep stat touch mkdir sh kill grep tr ps mount readlink ln chmod";
  initScript = ./stand-in-init.sh;
}

# The stand-in NixOS modules every system is evaluated with (as nixos/modules/module-list.nix).
[
  ./assertions.nix
  ./ids.nix
  ./nixpkgs.nix
  ./users-groups.nix
  ./nix-daemon.nix
  ./systemd.nix
  ./sshd.nix
  ./system-basics.nix
  ./top-level.nix
  ./nixos-containers.nix
]

# The NixOS configuration inside every Forage sandbox (nixosModules.container).
{
  imports = [
    ./options.nix
    ./base.nix
    ./agents.nix
    ./session.nix
    ./network.nix
  ];
}

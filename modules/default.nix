# nixosModules.default: the host side of Forage (services.forage, and its SSH gateway).
{
  imports = [
    ./host.nix
    ./gateway.nix
  ];
}

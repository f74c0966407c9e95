# nixosModules.default: the host side of Forage (services.forage).
{
  imports = [ ./host.nix ];
}

# The agent wrappers of examples/multi-agent's "trio" template as generated into `generated`,
# built against the stand-in nixpkgs the test suite uses (test/nix/stand-in: nixpkgs cannot be
# fetched here), the way test/nix/agent-wrappers.test.ts builds them: each agent's package is a
# fake program that prints its name, argv and environment.
{ generated, secretsDir }:
let
  lib = import ../../test/nix/stand-in/lib;
  pkgs = import ../../test/nix/stand-in { };
  forage = { lib = import ../../modules/lib { inherit lib; }; };
in
import "${generated}/wrappers/trio.nix" { inherit pkgs forage secretsDir; }

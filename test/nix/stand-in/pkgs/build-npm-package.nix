# Stand-in for buildNpmPackage (pkgs/build-support/node/build-npm-package), building for real with
# the host's node and npm: the source as given (so a source set that leaves out a file the build
# needs fails as it would in nixpkgs), dependencies from `npmDeps` (only importNpmLock's result is
# modelled: it needs importNpmLock.npmConfigHook), `npm run <npmBuildScript>` unless dontNpmBuild
# (a script missing from package.json fails), then the install hook's layout:
# $out/lib/node_modules/<package.json name> with the files `npm pack` would ship (package.json
# `files`), devDependencies pruned unless dontNpmPrune, and one $out/bin launcher per `bin` entry.
{ lib, pkgs }:
{
  pname,
  version,
  src,
  npmDeps ? null,
  npmDepsHash ? "",
  npmConfigHook ? null,
  npmBuildScript ? "build",
  dontNpmBuild ? false,
  dontNpmPrune ? false,
  nodejs ? pkgs.nodejs,
  meta ? { },
  ...
}:
let
  usesImportNpmLock = npmConfigHook != null && (npmConfigHook.name or null) == "importNpmLock-npmConfigHook";
  checked =
    if npmDeps == null then
      throw "buildNpmPackage (stand-in): without npmDeps it would fetch with fetchNpmDeps (npmDepsHash ${builtins.toJSON npmDepsHash}), which needs `resolved` URLs in the lock; not modelled here"
    else if !usesImportNpmLock then
      throw "buildNpmPackage (stand-in): npmDeps from importNpmLock need `npmConfigHook = importNpmLock.npmConfigHook` (npmHooks.npmConfigHook cannot be used with importNpmLock)"
    else
      true;
  drv = derivation {
    name = "${pname}-${version}";
    system = pkgs.stdenv.hostPlatform.system;
    builder = "/bin/bash";
    PATH = "/usr/bin:/bin";
    inherit src npmDeps npmBuildScript;
    dontNpmBuild = if dontNpmBuild then "1" else "";
    dontNpmPrune = if dontNpmPrune then "1" else "";
    args = [ ./build-npm-package.sh ];
  };
in
builtins.seq checked drv // { inherit pname version meta; }

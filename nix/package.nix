# forage-ctl as a Nix package: buildNpmPackage with the dependencies of importNpmLock (no
# npmDepsHash to keep in step with the lock file). The lock has no `resolved` URLs (it is written
# without registry hosts), so every entry's tarball comes through packageSourceOverrides from
# npm-registry-tarball.nix, pinned by the lock's own `integrity`.
{
  lib,
  buildNpmPackage,
  glibc,
  importNpmLock,
  nodejs,
  runCommand,
}:
let
  root = ../.;
  lock = lib.importJSON ../package-lock.json;
  registryTarball = import ./npm-registry-tarball.nix { inherit lib runCommand nodejs; };
  tarballs = lib.mapAttrs (path: entry: registryTarball { inherit path entry; }) (
    lib.filterAttrs (path: entry: path != "" && !(entry.link or false)) lock.packages
  );
in
buildNpmPackage {
  pname = "forage-ctl";
  version = (lib.importJSON ../package.json).version;
  # Everything `npm run build` compiles (tsconfig.build.json) and everything package.json's
  # `files` ships.
  src = lib.fileset.toSource {
    inherit root;
    fileset = lib.fileset.unions [
      ../package.json
      ../package-lock.json
      ../tsconfig.json
      ../tsconfig.build.json
      ../cli
      ../generator
      ../runtime
      ../modules
      ../native
      ../scripts/build-native.sh
      ../scripts/bundle-cli.mjs
      ../templates
      ../examples
      ../flake.nix
    ];
  };
  inherit nodejs;
  npmDeps = importNpmLock {
    npmRoot = root;
    packageSourceOverrides = tarballs;
  };
  npmConfigHook = importNpmLock.npmConfigHook;
  npmBuildScript = "build";
  # `build` also compiles the native helpers (native/*.c) with stdenv's cc, statically (forage-enter
  # runs inside sandbox roots that share nothing with the host's libraries): that needs glibc's
  # static libc.
  buildInputs = [ glibc.static ];
  meta = {
    description = "Disposable, network-restricted sandboxes for AI coding agents";
    license = lib.licenses.mit;
    mainProgram = "forage-ctl";
    platforms = lib.platforms.linux;
  };
}

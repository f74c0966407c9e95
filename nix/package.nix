# forage-ctl as a Nix package. importNpmLock reads package-lock.json directly, so there is no
# npmDepsHash to keep in step with the lock file.
{
  lib,
  buildNpmPackage,
  importNpmLock,
  nodejs_20,
}:
let
  root = ../.;
in
buildNpmPackage {
  pname = "forage-ctl";
  version = (lib.importJSON ../package.json).version;
  src = lib.fileset.toSource {
    inherit root;
    fileset = lib.fileset.unions [
      ../package.json
      ../package-lock.json
      ../tsconfig.json
      ../tsconfig.build.json
      ../cli
      ../generator
      ../modules
      ../templates
      ../examples
    ];
  };
  nodejs = nodejs_20;
  npmDeps = importNpmLock { npmRoot = root; };
  npmConfigHook = importNpmLock.npmConfigHook;
  npmBuildScript = "build";
  meta = {
    description = "Disposable, network-restricted sandboxes for AI coding agents";
    license = lib.licenses.mit;
    mainProgram = "forage-ctl";
    platforms = lib.platforms.linux;
  };
}

# A fake package: each of its programs prints its name, its arguments, its command line and its
# environment, so a test can see what a wrapper started and with what. Like a nixpkgs package it
# has pname, version and meta, and its drvPath and outPath refuse to evaluate when its license is
# unfree and the package set's config does not allow it (pkgs/stdenv/generic/check-meta.nix: the
# allowUnfree flag or NIXPKGS_ALLOW_UNFREE=1, allowUnfreePackages by lib.getName, or
# allowUnfreePredicate called with the package's arguments).
{ lib, config, system }:
spec:
let
  pname = builtins.replaceStrings [ "'" ] [ "-" ] (lib.last spec.path);
  version = spec.version or "1.0";
  bins = spec.bins or [ pname ];
  meta = {
    license = spec.license or lib.licenses.mit;
    mainProgram = builtins.head bins;
    position = "test/nix/stand-in/pkgs/catalogue.nix";
  };
  arguments = { inherit pname version meta; };
  unfree = !(meta.license.free or true);
  allowed =
    !unfree
    || (config.allowUnfree or false)
    || builtins.getEnv "NIXPKGS_ALLOW_UNFREE" == "1"
    || builtins.elem pname (config.allowUnfreePackages or [ ])
    || (builtins.isFunction (config.allowUnfreePredicate or null) && config.allowUnfreePredicate arguments);
  valid =
    if allowed then true
    else throw "Refusing to evaluate package '${pname}-${version}' in ${meta.position} because it has an unfree license (‘${meta.license.shortName}’)";
  drv = derivation {
    name = "${pname}-${version}";
    inherit system bins;
    PATH = "/usr/bin:/bin";
    builder = "/bin/sh";
    args = [ "-c" ''
      mkdir -p "$out/bin"
      for bin in $bins; do
        printf '#!/bin/sh\necho "program=%s"\necho "argv=$*"\nprintf "cmdline=%%s\\n" "$(tr "\\0" " " < /proc/$$/cmdline)"\nenv\n' "$bin" > "$out/bin/$bin"
        chmod +x "$out/bin/$bin"
      done
    '' ];
  };
in
drv
// {
  inherit pname version meta;
  drvPath = builtins.seq valid drv.drvPath;
  outPath = builtins.seq valid drv.outPath;
}
// lib.optionalAttrs (spec ? shellPath) { inherit (spec) shellPath; }

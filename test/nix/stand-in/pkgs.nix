# Stand-in for the parts of nixpkgs' package set that Forage uses (see README.md).
# `packages`: list of { path = [ "python3Packages" "black" ]; bins = [ "black" ]; }.
{ lib, packages ? [ ] }:
let
  shell = "/bin/sh";
  # The host's coreutils stand in for stdenv (the Debian nix-bin store has no bootstrap tools).
  hostPath = "/usr/bin:/bin";
  fakePackage = spec:
    let name = builtins.replaceStrings [ "'" ] [ "-" ] (lib.last spec.path); in
    derivation {
      inherit name;
      PATH = hostPath;
      system = builtins.currentSystem;
      builder = shell;
      bins = spec.bins or [ name ];
      # Each program prints who it is, its argv and its environment (NUL-free, one per line).
      args = [ "-c" ''
        mkdir -p "$out/bin"
        for bin in $bins; do
          printf '#!/bin/sh\necho "program=%s"\necho "argv=$*"\nprintf "cmdline=%%s\\n" "$(tr "\\0" " " < /proc/$$/cmdline)"\nenv\n' "$bin" > "$out/bin/$bin"
          chmod +x "$out/bin/$bin"
        done
      '' ];
    } // { meta.mainProgram = name; };
  packageSet = builtins.foldl' (acc: spec: lib.recursiveUpdate acc (lib.setAttrByPath spec.path (fakePackage spec))) { } packages;
in
packageSet // {
  # The host's real tmux, so the session script is tested against the real thing.
  tmux = derivation {
    name = "tmux";
    PATH = hostPath;
    system = builtins.currentSystem;
    builder = shell;
    args = [ "-c" ''mkdir -p "$out/bin" && ln -s /usr/bin/tmux "$out/bin/tmux"'' ];
  } // { meta.mainProgram = "tmux"; };

  writeShellApplication = { name, text, runtimeInputs ? [ ] }:
    derivation {
      inherit name text;
      PATH = hostPath;
      system = builtins.currentSystem;
      builder = shell;
      args = [ "-c" ''
        mkdir -p "$out/bin"
        { printf '#!/bin/bash\nset -o errexit\nset -o nounset\nset -o pipefail\n'; printf '%s\n' "$text"; } > "$out/bin/$name"
        chmod +x "$out/bin/$name"
      '' ];
    } // { meta.mainProgram = name; };
}

# Build helpers and programs the stand-in takes from the host: tmux (real, so the session script
# is tested against the real thing), writeShellApplication (bash script with nixpkgs' strict
# prelude; no shellcheck) and writeText. The host's coreutils stand in for stdenv.
{ system }:
let
  hostPath = "/usr/bin:/bin";
  build = name: attrs: script: derivation ({ inherit name system; PATH = hostPath; builder = "/bin/sh"; args = [ "-c" script ]; } // attrs);
in
{
  tmux = build "tmux" { } ''mkdir -p "$out/bin" && ln -s /usr/bin/tmux "$out/bin/tmux"'' // { pname = "tmux"; meta.mainProgram = "tmux"; };

  writeShellApplication = { name, text, runtimeInputs ? [ ] }:
    build name { inherit text; } ''
      mkdir -p "$out/bin"
      { printf '#!/bin/bash\nset -o errexit\nset -o nounset\nset -o pipefail\n'; printf '%s\n' "$text"; } > "$out/bin/$name"
      chmod +x "$out/bin/$name"
    '' // { meta.mainProgram = name; };

  writeText = name: text: build name { inherit text; } ''printf '%s' "$text" > "$out"'';

  # Fixed-output derivations (outputHash) keep their attributes, impureEnvVars included.
  runCommand = name: env: script: build name (removeAttrs env [ "nativeBuildInputs" ]) script;

  mkShell = { packages ? [ ], ... }: build "nix-shell" { inherit packages; } ''echo stand-in > "$out"'';
}

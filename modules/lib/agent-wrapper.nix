# An agent's launcher: reads the agent's API key from a file at run time and exports it for the
# agent process only. The key is never part of the derivation (the Nix store is world-readable),
# never passed on a command line (argv is visible in /proc), and never set for login shells.
{ lib }:
{
  pkgs,
  name,
  package,
  executable ? null,
  secretFile ? null,
  envVar ? null,
}:
let
  program = if executable == null then lib.getExe package else "${package}/bin/${executable}";
  validEnvVar = envVar != null && builtins.match "[A-Za-z_][A-Za-z0-9_]*" envVar != null;
  readSecret = ''
    secret_file=${lib.escapeShellArg secretFile}
    if [ ! -r "$secret_file" ]; then
      echo ${lib.escapeShellArg "${name}: cannot read its API key at ${secretFile}; is the secret set for this sandbox?"} >&2
      exit 1
    fi
    ${envVar}="$(<"$secret_file")"
    export ${envVar}
  '';
in
assert lib.assertMsg ((secretFile == null) == (envVar == null))
  "mkAgentWrapper ${name}: secretFile and envVar go together; set both or neither.";
assert lib.assertMsg (envVar == null || validEnvVar)
  "mkAgentWrapper ${name}: envVar must be a shell variable name, got ${builtins.toString envVar}.";
pkgs.writeShellApplication {
  inherit name;
  runtimeInputs = [ ];
  text = ''
    ${lib.optionalString (secretFile != null) readSecret}
    exec ${lib.escapeShellArg program} "$@"
  '';
}

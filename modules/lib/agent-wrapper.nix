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
  envFile ? null,
  # Claude Code: the sandbox's rendered context, passed with --append-system-prompt when readable
  # (read at run time: it is rendered per sandbox, at each start).
  promptFile ? null,
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
  # Only NAME=value lines with a valid NAME are exported; nothing in the file is ever evaluated.
  readEnvFile = ''
    env_file=${lib.escapeShellArg envFile}
    if [ ! -r "$env_file" ]; then
      echo ${lib.escapeShellArg "${name}: cannot read its proxy settings at ${envFile}; is the API proxy set up for this sandbox?"} >&2
      exit 1
    fi
    while IFS= read -r line; do
      env_name=''${line%%=*}
      if [[ $env_name =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; then export "$env_name=''${line#*=}"; fi
    done <"$env_file"
  '';
  readPrompt = ''
    prompt_file=${lib.escapeShellArg promptFile}
    if [ -r "$prompt_file" ]; then
      exec ${lib.escapeShellArg program} --append-system-prompt "$(<"$prompt_file")" "$@"
    fi
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
    ${lib.optionalString (envFile != null) readEnvFile}
    ${lib.optionalString (promptFile != null) readPrompt}
    exec ${lib.escapeShellArg program} "$@"
  '';
}

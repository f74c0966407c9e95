# One wrapper per agent of a template, keyed by agent name. Used both inside the container and by
# the generated wrappers/<template>.nix, so the two can never differ.
{ lib, mkAgentWrapper }:
{
  pkgs,
  agents,
  secretsDir ? "/run/secrets",
  # Agent name → the rendered prompt file its wrapper passes with --append-system-prompt.
  promptFiles ? { },
}:
lib.mapAttrs (
  name: agent:
  mkAgentWrapper {
    inherit pkgs name;
    package = agent.package;
    executable = agent.executable or null;
    secretFile = if (agent.secretName or null) == null then null else "${secretsDir}/${agent.secretName}";
    envVar = agent.authEnvVar or null;
    promptFile = promptFiles.${name} or null;
    # Per-sandbox `NAME=value` lines (the proxy's URL for this agent; a login's token or its
    # stand-in), written by forage-ctl at up (runtime/gates/api-proxy/sandbox-credentials.ts, which names the
    # same `_proxy/<agent>`).
    envFile =
      if (agent.auth or "wrapper") == "wrapper" && (agent.login or null) == null then
        null
      else
        "${secretsDir}/_proxy/${name}";
  }
) agents

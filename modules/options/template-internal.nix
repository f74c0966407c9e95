# The hand-written part of the template submodule (template.nix is generated from the zod schema):
# options the generator sets, not users, and what the reference's spellings mean.
{ config, lib, ... }:
{
  options.nftablesRuleset = lib.mkOption {
    type = lib.types.nullOr lib.types.path;
    default = null;
    internal = true;
    description = "Generated in-container nftables file for the template's network mode.";
  };

  options.seccompDenied = lib.mkOption {
    type = lib.types.nullOr (lib.types.listOf lib.types.str);
    default = null;
    internal = true;
    description = "Syscalls the template's seccomp filter refuses (its `seccomp.allow` taken back), computed by the generator; the container's services deny them with SystemCallFilter. null: a template not written by the generator.";
  };

  options.agentPromptFiles = lib.mkOption {
    type = lib.types.attrsOf lib.types.str;
    default = { };
    internal = true;
    description = "Agent name → the sandbox's rendered system prompt, which the agent's wrapper passes with --append-system-prompt (Claude Code, when the template gives context); computed by the generator.";
  };

  # The reference's `network = "restricted"; allowedHosts = [ … ];` is
  # network = { mode = "restricted"; allow = [ … ]; } (allowedHosts alone means restricted, as in a
  # config file). The host module warns where it is used and refuses it beside another mode.
  config.network = lib.mkIf (config.allowedHosts != null) {
    mode = lib.mkDefault "restricted";
    allow = config.allowedHosts;
  };
}

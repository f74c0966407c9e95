# forage.sandbox: what the container module is configured with. `template` is the same submodule
# as services.forage.templates.<name> (generated from the zod schema), so a template means the
# same thing on the host and in the container.
{ lib, ... }:
{
  options.forage.sandbox = {
    templateName = lib.mkOption {
      type = lib.types.str;
      description = "Name of the template this container was built from.";
    };
    template = lib.mkOption {
      type = lib.types.submodule [
        ../options/template.nix
        ../options/template-internal.nix
      ];
      description = "The template's settings (see services.forage.templates).";
    };
    user = lib.mkOption {
      type = lib.types.str;
      default = "agent";
      description = "Name of the agent user (services.forage.containerUsername).";
    };
    uid = lib.mkOption {
      type = lib.types.ints.between 1000 2147483646;
      default = 1000;
      description = "UID of the agent user; the host user's, so workspace files keep their owner.";
    };
    gid = lib.mkOption {
      type = lib.types.ints.between 100 2147483646;
      default = 100;
      description = "GID of the agent user; the host user's primary group.";
    };
    workspacePath = lib.mkOption {
      type = lib.types.str;
      default = "/workspace";
      description = "Where the workspace is mounted.";
    };
    secretsPath = lib.mkOption {
      type = lib.types.str;
      default = "/run/secrets";
      description = "Where the sandbox's secrets are mounted read-only.";
    };
    authorizedKeys = lib.mkOption {
      type = lib.types.listOf lib.types.str;
      default = [ ];
      description = "SSH public keys that may log in as the agent user.";
    };
    stateVersion = lib.mkOption {
      type = lib.types.str;
      default = "25.05";
      description = "system.stateVersion of the container.";
    };
  };
}

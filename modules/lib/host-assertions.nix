# The host module's assertions as a pure function of its settings, so the test suite can check
# them without the NixOS module system. Each message starts with the option it is about and says
# how to fix it.
{ lib }:
{
  cfg,
  userNames,
  # The host user's primary group (users.users.<user>.group), when declared.
  primaryGroup ? null,
  # The config's settings (options/host.nix) by name → the files whose definitions of it won.
  definedIn ? { },
}:
let
  # forage-ctl and its daemon read the generated forage.json, not this evaluation: a value set
  # anywhere but the generated default.nix (beside it, or mkForce over it) would be accepted by
  # NixOS and ignored by every sandbox. mkDefault under it loses and changes nothing.
  generatedFiles = [
    (toString cfg.generated)
    "${toString cfg.generated}/default.nix"
  ];
  settingChecks = lib.mapAttrsToList (
    name: files:
    let
      elsewhere = lib.filter (file: !(builtins.elem file generatedFiles)) files;
    in
    {
      assertion = cfg.generated == null || elsewhere == [ ];
      message = "services.forage.${name} is set in ${lib.concatStringsSep ", " elsewhere}, but forage-ctl reads the settings the generated default.nix sets (from your forage config, through forage.json), so that value would be ignored: set ${name} in forage.config.ts (or forage.yaml) and run `forage-ctl generate`.";
    }
  ) definedIn;
  templates = lib.attrsToList cfg.templates;
  # A template set in Nix may leave agents unset (null).
  agentsOf = template: lib.attrsToList (if (template.value.agents or null) == null then { } else template.value.agents);
  agentChecks = lib.concatMap (
    template:
    lib.concatMap (
      agent:
      let
        where = "services.forage.templates.${template.name}.agents.${agent.name}";
        secretName = agent.value.secretName or null;
        authEnvVar = agent.value.authEnvVar or null;
      in
      [
        {
          assertion = secretName == null || builtins.hasAttr secretName cfg.secrets;
          message = "${where}.secretName: secret \"${toString secretName}\" is not defined; add it to services.forage.secrets (name = host file path).";
        }
        {
          assertion = (secretName == null) == (authEnvVar == null);
          message = "${where}: secretName and authEnvVar go together; set both or neither.";
        }
      ]
    ) (agentsOf template)
  ) templates;
  aliasChecks = map (template: {
    assertion = (template.value.allowedHosts or null) == null || (template.value.network.mode or "restricted") == "restricted";
    message = "services.forage.templates.${template.name}.allowedHosts only applies to network \"restricted\", and this template's network is \"${template.value.network.mode or ""}\"; write network = { mode = \"restricted\"; allow = [ … ]; } or remove allowedHosts.";
  }) templates;
  fullModeChecks = map (template: {
    assertion = (template.value.network.mode or "none") != "full" || cfg.externalInterface != null;
    message = "services.forage.templates.${template.name}.network is \"full\" but services.forage.externalInterface is not set; set it to the host's uplink interface, e.g. \"eth0\".";
  }) templates;
in
[
  {
    assertion = cfg.user != "";
    message = "services.forage.user must be set to the host user whose UID/GID agents get, e.g. services.forage.user = \"alice\";";
  }
  {
    assertion = cfg.user == "" || builtins.elem cfg.user userNames;
    message = "services.forage.user: user \"${cfg.user}\" is not declared in users.users; declare it or pick an existing user.";
  }
  {
    assertion = cfg.uid != null;
    message = "services.forage.uid: users.users.${cfg.user}.uid is not set, so the agent's uid (the host user's, for workspace ownership) is not known when the system is built; set users.users.${cfg.user}.uid (or services.forage.uid).";
  }
  {
    assertion = cfg.gid != null;
    message = "services.forage.gid: the primary group of ${cfg.user} (${toString primaryGroup}) has no fixed gid, so the agent's gid is not known when the system is built; set users.groups.${toString primaryGroup}.gid (or services.forage.gid).";
  }
  {
    assertion = cfg.generated != null;
    message = "services.forage.generated is not set: run `forage-ctl generate` and import the generated default.nix next to forage.nixosModules.default.";
  }
]
++ agentChecks
++ aliasChecks
++ fullModeChecks
++ settingChecks

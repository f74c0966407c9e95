# Stand-in for nixos/modules/system/boot/systemd.nix and its neighbours (journald, coredump, oomd,
# dbus, nscd): the service and tmpfiles options Forage sets, and the accounts these modules
# declare on every system, containers included (static ids from ids.nix; others allocated on
# activation).
{ config, lib, pkgs, ... }:
let
  inherit (lib) mkOption types;
  ids = config.ids;
  unitValue = types.oneOf [ types.bool types.int types.str types.path (types.listOf (types.oneOf [ types.bool types.int types.str types.path ])) ];
  serviceOptions = { name, ... }: {
    options = {
      enable = mkOption { type = types.bool; default = true; description = "Whether the unit is installed."; };
      description = mkOption { type = types.singleLineStr; default = ""; description = "Unit description."; };
      wantedBy = mkOption { type = types.listOf types.str; default = [ ]; description = "Units that want this one."; };
      after = mkOption { type = types.listOf types.str; default = [ ]; description = "Units started before this one."; };
      requires = mkOption { type = types.listOf types.str; default = [ ]; description = "Units this one requires."; };
      path = mkOption { type = types.listOf (types.either types.package types.str); default = [ ]; description = "Packages on the service's PATH."; };
      environment = mkOption { type = types.attrsOf (types.nullOr (types.oneOf [ types.str types.path types.package ])); default = { }; description = "Environment variables."; };
      restartTriggers = mkOption { type = types.listOf types.unspecified; default = [ ]; description = "Values whose change restarts the unit."; };
      serviceConfig = mkOption { type = types.attrsOf unitValue; default = { }; description = "[Service] settings."; };
      unitConfig = mkOption { type = types.attrsOf unitValue; default = { }; description = "[Unit] settings."; };
      script = mkOption { type = types.lines; default = ""; description = "Shell commands run as the service."; };
    };
  };
in
{
  options.systemd = {
    services = mkOption { type = types.attrsOf (types.submodule serviceOptions); default = { }; description = "systemd services."; };
    tmpfiles.rules = mkOption { type = types.listOf types.str; default = [ ]; description = "systemd-tmpfiles rules."; };
  };
  config.users = {
    users = {
      systemd-network = { uid = ids.uids.systemd-network; group = "systemd-network"; };
      systemd-resolve = { uid = ids.uids.systemd-resolve; group = "systemd-resolve"; };
      systemd-coredump = { uid = ids.uids.systemd-coredump; group = "systemd-coredump"; };
      messagebus = { uid = ids.uids.messagebus; group = "messagebus"; home = "/run/dbus"; };
      systemd-oom = { isSystemUser = true; group = "systemd-oom"; };
      nscd = { isSystemUser = true; group = "nscd"; };
    };
    groups = {
      systemd-network.gid = ids.gids.systemd-network;
      systemd-resolve.gid = ids.gids.systemd-resolve;
      systemd-journal.gid = ids.gids.systemd-journal;
      keys.gid = ids.gids.keys;
      messagebus.gid = ids.gids.messagebus;
      systemd-coredump = { };
      systemd-oom = { };
      nscd = { };
    };
  };
}

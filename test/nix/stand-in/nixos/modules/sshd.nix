# Stand-in for nixos/modules/services/networking/ssh/sshd.nix: the options Forage sets (settings
# is a freeform set with typed known keys), authorized keys declared on every user whether or not
# sshd runs, and the sshd account (allocated on activation) when it does.
{ config, lib, ... }:
let
  inherit (lib) mkOption types;
  cfg = config.services.openssh;
  settingValue = types.nullOr (types.oneOf [ types.bool types.int types.str (types.listOf types.str) ]);
in
{
  options.users.users = mkOption {
    type = types.attrsOf (types.submodule {
      options.openssh.authorizedKeys = {
        keys = mkOption { type = types.listOf types.singleLineStr; default = [ ]; description = "Public keys that may log in."; };
        keyFiles = mkOption { type = types.listOf types.path; default = [ ]; description = "Files of public keys that may log in."; };
      };
    });
  };
  options.services.openssh = {
    enable = mkOption { type = types.bool; default = false; description = "Whether to enable the OpenSSH daemon."; };
    ports = mkOption { type = types.listOf types.port; default = [ 22 ]; description = "Ports sshd listens on."; };
    startWhenNeeded = mkOption { type = types.bool; default = false; description = "Whether sshd is socket-activated."; };
    settings = mkOption {
      type = types.submodule {
        freeformType = types.attrsOf settingValue;
        options = {
          PasswordAuthentication = mkOption { type = types.nullOr types.bool; default = true; description = "Password logins."; };
          KbdInteractiveAuthentication = mkOption { type = types.nullOr types.bool; default = true; description = "Keyboard-interactive logins."; };
          PermitRootLogin = mkOption { type = types.nullOr (types.enum [ "yes" "without-password" "prohibit-password" "forced-commands-only" "no" ]); default = "prohibit-password"; description = "Whether root may log in."; };
          AllowUsers = mkOption { type = types.nullOr (types.listOf types.str); default = null; description = "Users that may log in."; };
        };
      };
      default = { };
      description = "sshd_config settings.";
    };
  };
  config = lib.mkIf cfg.enable {
    users.users.sshd = { isSystemUser = true; group = "sshd"; description = "SSH privilege separation user"; };
    users.groups.sshd = { };
  };
}

# Stand-in for nixos/modules/services/networking/ssh/sshd.nix: the options Forage sets (settings
# is a freeform set with typed known keys), authorized keys declared on every user whether or not
# sshd runs, the sshd account (allocated on activation) when it does, and /etc/ssh/sshd_config as
# nixpkgs writes it: the settings as "Key value" lines (booleans yes/no, nulls left out, lists
# joined for the keys nixpkgs joins, refused for others), then extraConfig, whose first lines
# (order 0) are NixOS's own: AddressFamily, Port, ListenAddress, Subsystem, AuthorizedKeysFile,
# HostKey. Tests check that file with the host's real sshd, as nixpkgs' system.checks does
# (`sshd -G -T -C lport=…`). Refused as nixpkgs refuses: a listenAddresses entry without addr, and
# settings keys that differ only in case. Stricter than nixpkgs: extraConfig is pasted into an
# unquoted shell heredoc there (`cat … - >$out <<EOL`), so $, ` and \ would be expanded by the
# shell; the stand-in refuses them rather than model the expansion.
{ config, lib, pkgs, ... }:
let
  inherit (lib) mkOption types;
  cfg = config.services.openssh;
  settingValue = types.nullOr (types.oneOf [ types.bool types.int types.str (types.listOf types.str) ]);
  known = type: default: description: mkOption { type = types.nullOr type; inherit default description; };

  commaSeparated = [ "Ciphers" "KexAlgorithms" "Macs" ];
  spaceSeparated = [ "AcceptEnv" "AuthorizedKeysFile" "AllowGroups" "AllowUsers" "DenyGroups" "DenyUsers" ];
  valueText = key: value:
    if builtins.isList value then
      (if builtins.elem key commaSeparated then builtins.concatStringsSep "," value
       else if builtins.elem key spaceSeparated then builtins.concatStringsSep " " value
       else throw "list value for unknown key ${key}: ${builtins.toJSON value}")
    else if value == true then "yes"
    else if value == false then "no"
    else toString value;
  settingsText = builtins.concatStringsSep "" (lib.mapAttrsToList (key: value: "${key} ${valueText key value}\n") (lib.filterAttrs (_: value: value != null) cfg.settings));

  letters = text: builtins.genList (i: builtins.substring i 1 text) (builtins.stringLength text);
  lower = builtins.replaceStrings (letters "ABCDEFGHIJKLMNOPQRSTUVWXYZ") (letters "abcdefghijklmnopqrstuvwxyz");
  duplicates = builtins.filter (names: builtins.length names > 1) (builtins.attrValues (builtins.groupBy lower (builtins.attrNames cfg.settings)));
  heredocSafe = text: builtins.match ".*[$`\\\\].*" text == null;
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
    listenAddresses = mkOption {
      type = types.listOf (types.submodule {
        options = {
          addr = mkOption { type = types.nullOr types.str; default = null; description = "Address to listen on."; };
          port = mkOption { type = types.nullOr types.port; default = null; description = "Port to listen on."; };
        };
      });
      default = [ ];
      description = "Addresses (and ports) sshd listens on; any entry replaces listening on every address.";
    };
    openFirewall = mkOption { type = types.bool; default = true; description = "Whether the firewall opens ports."; };
    startWhenNeeded = mkOption { type = types.bool; default = false; description = "Whether sshd is socket-activated."; };
    allowSFTP = mkOption { type = types.bool; default = true; description = "Whether the sftp subsystem is enabled."; };
    sftpServerExecutable = mkOption { type = types.str; default = "/nix/store/00000000000000000000000000000000-openssh/libexec/sftp-server"; description = "The sftp server (nixpkgs: the openssh package's)."; };
    authorizedKeysInHomedir = mkOption { type = types.bool; default = true; description = "Whether ~/.ssh/authorized_keys is read."; };
    hostKeys = mkOption { type = types.listOf types.attrs; default = [ { type = "rsa"; bits = 4096; path = "/etc/ssh/ssh_host_rsa_key"; } { type = "ed25519"; path = "/etc/ssh/ssh_host_ed25519_key"; } ]; description = "Host keys."; };
    extraConfig = mkOption { type = types.lines; default = ""; description = "Verbatim contents of sshd_config."; };
    settings = mkOption {
      type = types.submodule {
        freeformType = types.attrsOf settingValue;
        # The typed keys with nixpkgs' defaults; the algorithm lists are left out (not modelled: they
        # name algorithms newer than the test machines' sshd).
        options = {
          PasswordAuthentication = known types.bool true "Password logins.";
          KbdInteractiveAuthentication = known types.bool true "Keyboard-interactive logins.";
          PermitRootLogin = known (types.enum [ "yes" "without-password" "prohibit-password" "forced-commands-only" "no" ]) "prohibit-password" "Whether root may log in.";
          AllowUsers = known (types.listOf types.str) null "Users that may log in.";
          UsePAM = known types.bool true "PAM authentication.";
          X11Forwarding = known types.bool false "X11 forwarding.";
          PrintMotd = known types.bool false "Printing /etc/motd.";
          StrictModes = known types.bool true "Checking file modes.";
          UseDns = known types.bool false "Reverse DNS look-ups.";
          GatewayPorts = known types.str "no" "Whether forwarded ports listen beyond loopback.";
          LogLevel = known (types.enum [ "QUIET" "FATAL" "ERROR" "INFO" "VERBOSE" "DEBUG" "DEBUG1" "DEBUG2" "DEBUG3" ]) "INFO" "Log verbosity.";
          AuthorizedPrincipalsFile = known types.str "none" "Principals accepted for certificates.";
        };
      };
      default = { };
      description = "sshd_config settings.";
    };
  };
  config = lib.mkIf cfg.enable {
    users.users.sshd = { isSystemUser = true; group = "sshd"; description = "SSH privilege separation user"; };
    users.groups.sshd = { };
    assertions = [
      {
        assertion = duplicates == [ ];
        message = "Duplicate sshd config key; does your capitalization match the option's? Duplicate keys: ${builtins.concatStringsSep ", " (map (names: "(${builtins.concatStringsSep ", " names})") duplicates)}";
      }
    ] ++ map (entry: { assertion = entry.addr != null; message = "addr must be specified in each listenAddresses entry"; }) cfg.listenAddresses;
    services.openssh.extraConfig = lib.mkOrder 0 (builtins.concatStringsSep "\n" (
      # AddressFamily follows networking.enableIPv6 in nixpkgs (default true; not modelled).
      [ "AddressFamily any" ]
      ++ map (port: "Port ${toString port}") cfg.ports
      ++ map (entry: "ListenAddress ${entry.addr}${lib.optionalString (entry.port != null) ":${toString entry.port}"}") cfg.listenAddresses
      ++ lib.optional cfg.allowSFTP "Subsystem sftp ${cfg.sftpServerExecutable} "
      ++ [ "AuthorizedKeysFile ${toString (lib.optional cfg.authorizedKeysInHomedir "%h/.ssh/authorized_keys" ++ [ "/etc/ssh/authorized_keys.d/%u" ])}" ]
      ++ map (key: "HostKey ${key.path}") cfg.hostKeys
    ));
    environment.etc."ssh/sshd_config".text =
      if heredocSafe cfg.extraConfig then "${settingsText}${cfg.extraConfig}\n"
      else throw "stand-in: services.openssh.extraConfig holds $, ` or \\, which nixpkgs' sshd.nix would let the shell expand (it writes extraConfig through an unquoted heredoc)";
    networking.firewall.allowedTCPPorts = lib.mkIf cfg.openFirewall cfg.ports;
  };
}

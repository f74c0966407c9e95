# services.forage.gateway: one SSH entry for remote use. `ssh -t forage@host NAME` attaches to
# sandbox NAME, `ssh -t forage@host` opens the picker. A dedicated account whose only program is
# `forage-ctl gateway` (sshd's ForceCommand, and its login shell as well), allowed by the daemon on
# a socket of its own (the daemon's FORAGE_GATEWAY_USER), and an sshd Match block that gives it a
# terminal and nothing else: no forwarding of any kind, no ~/.ssh/rc.
# Hand-written, not generated from the config schema: an account and sshd exist only on NixOS; on
# other hosts nothing would act on these options (README, "Gateway", shows the same setup by hand).
{ config, lib, pkgs, ... }:
let
  cfg = config.services.forage;
  gateway = cfg.gateway;
  account = "forage";
  forageCtl = lib.getExe cfg.package;
  # sshd runs a ForceCommand through the account's shell ("shell -c command"). This shell runs the
  # gateway whatever it is given, so any other way in (su, a Match that no longer applies) reaches
  # the gateway too, never a shell.
  gatewayShell = pkgs.writeShellApplication {
    name = "forage-gateway-shell";
    text = "exec ${forageCtl} gateway";
  };
  sshPorts = config.services.openssh.ports;
  # Not added to services.openssh.ports: a definition there replaces NixOS's default [ 22 ], and
  # would lock the administrator out of port 22.
  extraPort = !(builtins.elem gateway.port sshPorts);
in
{
  options.services.forage.gateway = {
    enable = lib.mkEnableOption "the SSH gateway: `ssh -t forage@host NAME` attaches to sandbox NAME, `ssh -t forage@host` opens the picker";
    port = lib.mkOption {
      type = lib.types.port;
      default = 22;
      example = 2222;
      description = "Port the gateway is reached on; sshd also listens there when it is not one of services.openssh.ports (and the firewall opens it when services.openssh.openFirewall is set). The account is the gateway on every sshd port.";
    };
    authorizedKeys = lib.mkOption {
      type = lib.types.listOf lib.types.singleLineStr;
      default = [ ];
      example = [ "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI… you@laptop" ];
      description = "SSH public keys that may log in to the gateway account (forage). Whoever holds one may list, create, remove and attach to sandboxes as the configured user, and nothing else.";
    };
  };

  config = lib.mkIf (cfg.enable && gateway.enable) {
    assertions = [
      {
        assertion = gateway.authorizedKeys != [ ];
        message = "services.forage.gateway.authorizedKeys is empty, so nobody could log in to the gateway; add the public keys of those who may attach (e.g. \"ssh-ed25519 AAAA… you@laptop\").";
      }
      {
        assertion = cfg.user != account;
        message = "services.forage.gateway: the gateway account (${account}) cannot be services.forage.user; choose another host user for sandboxes.";
      }
    ];
    users.users.${account} = {
      isSystemUser = true;
      group = account;
      description = "Forage SSH gateway";
      shell = lib.getExe gatewayShell;
      # No password matches "*"; unlike "!", sshd does not take it for a locked account without PAM.
      hashedPassword = "*";
      openssh.authorizedKeys.keys = gateway.authorizedKeys;
    };
    users.groups.${account} = { };
    # The daemon opens the gateway's socket for this account (forage-ctl daemon --gateway-user).
    systemd.services.forage.environment.FORAGE_GATEWAY_USER = account;
    services.openssh = {
      enable = true;
      # After NixOS's own lines (order 0), before anyone's Match blocks: Port is global only.
      # The Match block comes last, and `Match all` closes it, so lines after it are not scoped to
      # the gateway. nixpkgs pastes extraConfig into an unquoted heredoc: no $, ` or \ here.
      extraConfig = lib.mkMerge [
        (lib.mkIf extraPort (lib.mkBefore "Port ${toString gateway.port}"))
        (lib.mkAfter ''
          Match User ${account}
            ForceCommand ${forageCtl} gateway
            PermitTTY yes
            DisableForwarding yes
            AllowTcpForwarding no
            AllowStreamLocalForwarding no
            AllowAgentForwarding no
            X11Forwarding no
            PermitTunnel no
            GatewayPorts no
            PermitUserRC no
          Match all
        '')
      ];
    };
    networking.firewall.allowedTCPPorts = lib.mkIf (extraPort && config.services.openssh.openFirewall) [ gateway.port ];
  };
}

# The sandbox's base system: an unprivileged agent user with the host user's UID/GID, no sudo,
# sshd with keys only, and the standard tool set.
{ config, lib, pkgs, ... }:
let
  cfg = config.forage.sandbox;
  accounts = import ./accounts.nix { inherit lib; inherit (config) ids users; inherit cfg; };
  forageLib = import ../lib { inherit lib; };
in
{
  boot.isContainer = true;
  # Every route runs it under systemd-nspawn (nspawn-nix too, not only containers.<name>). Said
  # here, NixOS's stage 2 leaves nspawn's /run and /dev/shm as they are; otherwise it remounts them
  # at 25% and 50% of the host's RAM (tasks/filesystems.nix), undoing the caps forage-ctl sets
  # below the template's memoryMax.
  boot.isNspawnContainer = true;
  system.stateVersion = cfg.stateVersion;

  users.mutableUsers = false;
  # Nobody logs in to a sandbox with a password: the host enters it with nsenter, and sshd admits
  # the agent's keys only. This is NixOS's documented way to say so; without it NixOS refuses a
  # system with immutable users where neither root nor a wheel user can log in.
  users.allowNoPasswordLogin = true;
  users.groups.${accounts.group}.gid = cfg.gid;
  users.users.${cfg.user} = {
    isNormalUser = true;
    uid = cfg.uid;
    inherit (accounts) group;
    home = "/home/${cfg.user}";
    # bash under the sandbox's seccomp filter: what sshd and tmux start as the agent's shell.
    shell = forageLib.sandboxEntry.loginShell {
      inherit pkgs;
      bash = "${pkgs.bashInteractive}/bin/bash";
    };
    openssh.authorizedKeys.keys = cfg.authorizedKeys;
  };
  assertions = accounts.assertions;

  # The agent must not become root: no sudo, no doas, no wheel.
  security.sudo.enable = false;
  security.doas.enable = false;

  # sshd starts from the container's systemd under systemd's filter; the sessions it opens run
  # the agent's login shell, which puts them under the sandbox's own (see sandbox-entry.nix).
  systemd.services.sshd.serviceConfig = lib.mkIf (cfg.template.ssh == true) (forageLib.seccompServiceConfig cfg.template);

  services.openssh = {
    enable = cfg.template.ssh == true;
    ports = [ 22 ];
    settings = {
      PasswordAuthentication = false;
      KbdInteractiveAuthentication = false;
      PermitRootLogin = "no";
      AllowUsers = [ cfg.user ];
    };
  };

  environment.systemPackages =
    (with pkgs; [ git jujutsu tmux neovim ripgrep fd ])
    ++ cfg.template.extraPackages;

  environment.etc."forage/template.json".text = builtins.toJSON {
    template = cfg.templateName;
    workspacePath = cfg.workspacePath;
    network = if cfg.template.network == null then "none" else cfg.template.network.mode;
  };

  # The workspace and secrets are bind mounts from the host; only their mount points live here.
  systemd.tmpfiles.rules = [
    "d ${cfg.workspacePath} 0755 ${cfg.user} ${cfg.user} - -"
  ];
}

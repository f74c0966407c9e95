# services.forage: the host side. Declares the options (generated from the zod schema, see
# options/), installs forage-ctl, lays out state and secrets directories, publishes the generated
# runtime settings under /etc/forage, and pre-builds each template's container system so that
# creating a sandbox later needs no Nix evaluation.
{ config, options, lib, pkgs, ... }:
let
  cfg = config.services.forage;
  settingOptions = import ./options/host.nix { inherit lib; };
  forageLib = import ./lib { inherit lib; };
  userCfg = config.users.users.${cfg.user} or { };
  primaryGroup = config.users.groups.${userCfg.group or ""} or { };
  # A template's container system, built as every other route builds it: the generated
  # containers/<name>.nix module with its own package set from this host's nixpkgs, platform and
  # overlays (so its nixpkgs.config, which allows the agents' unfree packages, is its own).
  templateSystem =
    name:
    (import "${pkgs.path}/nixos/lib/eval-config.nix" {
      system = null;
      modules = [
        (import "${cfg.generated}/containers/${name}.nix" {
          forage.nixosModules.container = ./container;
          inherit (cfg) uid gid;
        }).module
        {
          nixpkgs.hostPlatform = pkgs.stdenv.hostPlatform;
          nixpkgs.overlays = config.nixpkgs.overlays;
        }
      ];
    }).config.system.build.toplevel;
in
{
  options.services.forage = settingOptions // {
    enable = lib.mkEnableOption "Forage sandboxes for AI coding agents";
    package = lib.mkOption {
      type = lib.types.package;
      description = "The forage-ctl package.";
    };
    generated = lib.mkOption {
      type = lib.types.nullOr lib.types.path;
      default = null;
      description = "Directory written by `forage-ctl generate`; its default.nix sets this.";
    };
    uid = lib.mkOption {
      type = lib.types.nullOr lib.types.int;
      default = userCfg.uid or null;
      defaultText = lib.literalExpression "config.users.users.\${cfg.user}.uid";
      description = "UID the agent user gets; the host user's, so workspace files keep their owner.";
    };
    gid = lib.mkOption {
      type = lib.types.nullOr lib.types.int;
      default = primaryGroup.gid or null;
      defaultText = lib.literalExpression "the gid of the host user's primary group";
      description = "GID the agent user gets: the host user's primary group's.";
    };
  };

  config = lib.mkIf cfg.enable {
    assertions = forageLib.hostAssertions {
      inherit cfg;
      userNames = builtins.attrNames config.users.users;
      primaryGroup = userCfg.group or null;
      definedIn = lib.mapAttrs (name: _: options.services.forage.${name}.files) settingOptions;
    };
    warnings = forageLib.hostWarnings cfg;
    environment.systemPackages = [ cfg.package ];
    systemd.tmpfiles.rules = forageLib.hostTmpfiles cfg;
    environment.etc = {
      "forage/forage.json" = lib.mkIf (cfg.generated != null) { source = "${cfg.generated}/forage.json"; };
      # What `forage-ctl up --runtime extra-container` builds a sandbox's definition from.
      "forage/generated" = lib.mkIf (cfg.generated != null) { source = cfg.generated; };
      "forage/modules".source = ./.;
    } // lib.mapAttrs' (name: _: lib.nameValuePair "forage/systems/${name}" (lib.mkIf (cfg.generated != null) {
      source = templateSystem name;
    })) cfg.templates;
    # Who may read the API proxy's status file (counters, no secrets). The daemon's socket does not
    # use this group: it is owned by the configured user, mode 0600 (a group can grow; the user
    # alone is whom the daemon serves).
    users.groups.forage.members = [ cfg.user ];

    # The privileged daemon: serves forage-ctl to root and the configured user over
    # /run/forage/daemon.sock, and runs the API proxy when an agent uses auth "proxy" or
    # "placeholder" (`systemctl reload forage` re-reads its keys). Sandboxes are not its processes
    # to kill: KillMode=process keeps them running across restarts, and Delegate lets it manage
    # their cgroups.
    systemd.services.forage = {
      description = "Forage sandbox daemon";
      wantedBy = [ "multi-user.target" ];
      after = [ "network.target" ];
      # nft: the host-side tables and the guards' set writes; conntrack: policy changes cut
      # connections the new policy refuses; util-linux: nsenter; iproute2: links.
      path = [ pkgs.systemd pkgs.iproute2 pkgs.util-linux pkgs.nftables pkgs.conntrack-tools pkgs.tmux pkgs.coreutils ];
      environment.FORAGE_CONFIG = "/etc/forage/forage.json";
      # A new config restarts the daemon (sandboxes keep running), so the proxy's filters and
      # limits follow a rebuild.
      restartTriggers = lib.optional (cfg.generated != null) "${cfg.generated}/forage.json";
      serviceConfig = {
        ExecStart = "${lib.getExe cfg.package} daemon";
        ExecReload = "${pkgs.coreutils}/bin/kill -HUP $MAINPID";
        KillMode = "process";
        Delegate = true;
        Restart = "on-failure";
        RuntimeDirectory = "forage";
        RuntimeDirectoryPreserve = true;
      };
    };
    networking.nat = lib.mkIf (cfg.externalInterface != null) {
      enable = true;
      externalInterface = cfg.externalInterface;
      internalInterfaces = [ "ve-+" ];
    };
  };
}

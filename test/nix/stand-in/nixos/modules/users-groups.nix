# Stand-in for nixos/modules/config/users-groups.nix: the account options Forage's container
# module sets, the accounts NixOS always declares, and the assertions that refuse a system:
# unique uids and gids, a login for root or a wheel user when users are immutable, exactly one of
# isSystemUser/isNormalUser, a normal user's uid ≥ 1000, a primary group that is set and declared.
{ config, lib, pkgs, ... }:
let
  inherit (lib) mkOption types;
  cfg = config.users;
  ids = config.ids;

  userOptions = { name, config, ... }: {
    options = {
      enable = mkOption { type = types.bool; default = true; description = "Whether the account is created."; };
      name = mkOption {
        type = types.passwdEntry types.str;
        default = name;
        apply = x: if builtins.stringLength x >= 32 then abort "Username '${x}' is longer than 31 characters which is not allowed!" else x;
        description = "The name of the user account.";
      };
      description = mkOption { type = types.passwdEntry types.str; default = ""; description = "A short description of the user account."; };
      uid = mkOption { type = types.nullOr types.int; default = null; description = "The account UID; null picks a free one on activation."; };
      isSystemUser = mkOption { type = types.bool; default = false; description = "Whether this is a system user."; };
      isNormalUser = mkOption { type = types.bool; default = false; description = "Whether this is a real user (home, default shell, group users)."; };
      group = mkOption {
        type = types.str;
        default = "";
        apply = x: if builtins.stringLength x >= 32 then abort "Group name '${x}' is longer than 31 characters which is not allowed!" else x;
        description = "The user's primary group.";
      };
      extraGroups = mkOption { type = types.listOf types.str; default = [ ]; description = "The user's auxiliary groups."; };
      home = mkOption { type = types.passwdEntry types.path; default = "/var/empty"; description = "The user's home directory."; };
      homeMode = mkOption { type = types.strMatching "[0-7]{1,5}"; default = "700"; description = "Permissions of the home directory."; };
      createHome = mkOption { type = types.bool; default = false; description = "Whether to create the home directory."; };
      useDefaultShell = mkOption { type = types.bool; default = false; description = "Whether the user gets users.defaultUserShell."; };
      shell = mkOption { type = types.nullOr (types.either types.shellPackage (types.passwdEntry types.path)); default = pkgs.shadow; description = "The user's login shell."; };
      hashedPassword = mkOption { type = types.nullOr (types.passwdEntry types.str); default = null; description = "The user's password hash."; };
      password = mkOption { type = types.nullOr types.str; default = null; description = "The user's password, in clear text (world-readable in the store)."; };
      hashedPasswordFile = mkOption { type = types.nullOr types.str; default = null; description = "A file holding the password hash."; };
      initialPassword = mkOption { type = types.nullOr types.str; default = null; description = "The password the account is created with."; };
      packages = mkOption { type = types.listOf types.package; default = [ ]; description = "Packages in the user's profile."; };
    };
    config = lib.mkMerge [
      (lib.mkIf config.isNormalUser {
        group = lib.mkDefault "users";
        createHome = lib.mkDefault true;
        home = lib.mkDefault "${cfg.defaultUserHome}/${name}";
        useDefaultShell = lib.mkDefault true;
      })
      { shell = lib.mkIf config.useDefaultShell (lib.mkDefault cfg.defaultUserShell); }
    ];
  };

  groupOptions = { name, ... }: {
    options = {
      name = mkOption { type = types.passwdEntry types.str; default = name; description = "The name of the group."; };
      gid = mkOption { type = types.nullOr types.int; default = null; description = "The group GID; null picks a free one on activation."; };
      members = mkOption { type = types.listOf (types.passwdEntry types.str); default = [ ]; description = "The user names of the group members."; };
    };
  };

  # Duplicate ids are traced (as NixOS does) and make the uniqueness assertion fail.
  idsAreUnique = attr: set:
    let
      taken = builtins.filter (x: x != null) (map (entry: entry.${attr}) (builtins.attrValues set));
      duplicates = lib.unique (builtins.filter (id: builtins.length (builtins.filter (other: other == id) taken) > 1) taken);
    in
    builtins.foldl' (ok: id: builtins.trace "Duplicate ${attr} ${toString id}" false) true duplicates;

  allowsLogin = hash: hash == "" || !(builtins.elem hash [ null "!" "!!" "*" ]);
  canLogIn = name: user:
    (name == "root" || user.group == "wheel" || builtins.elem "wheel" user.extraGroups)
    && (allowsLogin user.hashedPassword || user.password != null || user.hashedPasswordFile != null
      || user.openssh.authorizedKeys.keys != [ ] || user.openssh.authorizedKeys.keyFiles != [ ]);
  groupNames = map (group: group.name) (builtins.attrValues cfg.groups);

  perUserAssertions = name: user:
    let
      effectivelySystem = user.isSystemUser || (user.uid != null && user.uid < 1000 && !user.isNormalUser);
    in
    [
      { assertion = builtins.match "[a-zA-Z0-9_.][a-zA-Z0-9_.-]*" user.name != null; message = "The username \"${user.name}\" is not valid, it does not match the regex \"[a-zA-Z0-9_.][a-zA-Z0-9_.-]*\"."; }
      { assertion = !(user.isNormalUser && user.uid != null && user.uid < 1000); message = "A user cannot have a users.users.${name}.uid set below 1000 and set users.users.${name}.isNormalUser."; }
      { assertion = (effectivelySystem && !user.isNormalUser) || (!effectivelySystem && user.isNormalUser); message = "Exactly one of users.users.${name}.isSystemUser and users.users.${name}.isNormalUser must be set."; }
      { assertion = user.group != ""; message = "users.users.${name}.group is unset. This used to default to\nnogroup, but this is unsafe."; }
    ];
in
{
  options.users = {
    users = mkOption { type = types.attrsOf (types.submodule userOptions); default = { }; description = "User accounts."; };
    groups = mkOption { type = types.attrsOf (types.submodule groupOptions); default = { }; description = "Groups."; };
    mutableUsers = mkOption { type = types.bool; default = true; description = "Whether accounts may be changed outside the configuration."; };
    enforceIdUniqueness = mkOption { type = types.bool; default = true; description = "Whether uids and gids must be unique."; };
    allowNoPasswordLogin = mkOption { type = types.bool; default = false; description = "Whether a system with no login for root or a wheel user is accepted."; };
    defaultUserHome = mkOption { type = types.str; default = "/home"; description = "Where normal users' homes are."; };
    defaultUserShell = mkOption { type = types.either types.path types.shellPackage; default = pkgs.bashInteractive; description = "The default login shell."; };
  };

  config = {
    users.users = {
      root = { uid = ids.uids.root; description = "System administrator"; home = "/root"; shell = lib.mkDefault cfg.defaultUserShell; group = "root"; };
      nobody = { uid = ids.uids.nobody; isSystemUser = true; description = "Unprivileged account (don't use!)"; group = "nogroup"; };
    };
    users.groups = lib.genAttrs [ "root" "wheel" "disk" "kmem" "tty" "floppy" "uucp" "lp" "cdrom" "tape" "audio" "video" "dialout" "nogroup" "users" "nixbld" "utmp" "adm" "input" "kvm" "render" "sgx" "shadow" ] (name: { gid = ids.gids.${name}; });

    assertions = [
      { assertion = !cfg.enforceIdUniqueness || (idsAreUnique "uid" cfg.users && idsAreUnique "gid" cfg.groups); message = "UIDs and GIDs must be unique!"; }
      {
        assertion = builtins.all (user: user.group == "" || builtins.elem user.group groupNames) (builtins.attrValues cfg.users);
        message = "The following users have a primary group that is undefined: ${toString (builtins.filter (name: cfg.users.${name}.group != "" && !(builtins.elem cfg.users.${name}.group groupNames)) (builtins.attrNames cfg.users))}";
      }
      {
        assertion = cfg.mutableUsers || builtins.all (user: user.shell != null) (builtins.attrValues cfg.users);
        message = "users.mutableUsers = false has been set,\nbut found users that have their shell set to null.";
      }
      {
        assertion = cfg.mutableUsers || cfg.allowNoPasswordLogin || builtins.any (name: canLogIn name cfg.users.${name}) (builtins.attrNames cfg.users);
        message = "Neither the root account nor any wheel user has a password or SSH authorized key.\nYou must set one to prevent being locked out of your system.\nIf you really want to be locked out of your system, set users.allowNoPasswordLogin = true;\nHowever you are most probably better off by setting users.mutableUsers = true; and\nmanually running passwd root to set the root password.";
      }
    ] ++ builtins.concatLists (lib.mapAttrsToList perUserAssertions cfg.users);
  };
}

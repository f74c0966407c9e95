# The agent's account beside the ones NixOS declares itself. The agent keeps the host user's uid
# and primary gid (workspace files keep their owner), so it must not take an id NixOS gives its
# own accounts and groups (ids.uids, ids.gids: nobody 65534, users 100, nogroup 65534, …).
# On NixOS the host user's primary group is usually `users` (gid 100): the agent then joins that
# group instead of declaring a second group with the same gid, which NixOS refuses ("UIDs and
# GIDs must be unique!"). Only ordinary groups may be joined this way; a uid NixOS already uses is
# refused with what to do.
{ lib, ids, users, cfg }:
let
  # NixOS's groups that carry no privilege: an agent may have one as its primary group.
  ordinaryGroups = [ "users" "nogroup" ];
  reservedGroup = lib.findFirst (name: ids.gids.${name} == cfg.gid) null (builtins.attrNames ids.gids);
  uidTakenBy = builtins.filter (name: name != cfg.user && users.users.${name}.uid == cfg.uid) (builtins.attrNames users.users);
in
{
  group = if reservedGroup == null then cfg.user else reservedGroup;
  assertions = [
    {
      assertion = reservedGroup == null || builtins.elem reservedGroup ordinaryGroups;
      message = "forage.sandbox.gid: ${toString cfg.gid} is the gid of NixOS's own group \"${toString reservedGroup}\", which the agent must not get as its primary group; give the host user (services.forage.user) an ordinary primary group, e.g. users (gid 100).";
    }
    {
      assertion = uidTakenBy == [ ];
      message = "forage.sandbox.uid: ${toString cfg.uid} is the uid of the container's own account \"${lib.concatStringsSep "\", \"" uidTakenBy}\" (NixOS declares it); the agent keeps the host user's uid, so services.forage.user must be a normal user (uid 1000 or more, not 65534/nobody, not a Nix build user).";
    }
  ];
}

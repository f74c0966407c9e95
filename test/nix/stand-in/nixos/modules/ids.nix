# Stand-in for nixos/modules/misc/ids.nix: the uids and gids NixOS gives its own accounts. Only
# the entries the stand-in modules use, with the values of the real table.
{ lib, ... }:
{
  options.ids = {
    uids = lib.mkOption { type = lib.types.attrsOf lib.types.int; internal = true; description = "The user IDs used in NixOS."; };
    gids = lib.mkOption { type = lib.types.attrsOf lib.types.int; internal = true; description = "The group IDs used in NixOS."; };
  };
  config.ids.uids = {
    root = 0;
    messagebus = 4;
    polkituser = 28;
    systemd-coredump = 151;
    systemd-network = 152;
    systemd-resolve = 153;
    systemd-timesync = 154;
    nixbld = 30000; # the start of the build users' range
    nobody = 65534;
  };
  config.ids.gids = {
    root = 0;
    wheel = 1;
    kmem = 2;
    tty = 3;
    messagebus = 4;
    disk = 6;
    audio = 17;
    floppy = 18;
    uucp = 19;
    lp = 20;
    proc = 21;
    cdrom = 24;
    tape = 25;
    video = 26;
    dialout = 27;
    utmp = 29;
    adm = 55;
    systemd-journal = 62;
    keys = 96;
    users = 100;
    systemd-network = 152;
    systemd-resolve = 153;
    systemd-timesync = 154;
    input = 174;
    kvm = 302;
    render = 303;
    sgx = 304;
    shadow = 318;
    uinput = 327;
    nixbld = 30000;
    onepassword = 31001;
    onepassword-cli = 31002;
    nogroup = 65534;
  };
}

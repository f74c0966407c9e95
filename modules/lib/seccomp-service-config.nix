# systemd's version of the sandbox's seccomp filter (systemd.exec(5)), for the services a NixOS
# sandbox starts itself rather than through forage-enter: the agents' session and sshd.
# Namespace creation is refused by RestrictNamespaces (which judges clone/unshare/setns by their
# flags and answers clone3 with ENOSYS), not by name: refusing clone by name would refuse every
# fork. `seccompDenied` is the generator's list (the template's `seccomp.allow` taken back); a
# template written without the generator (null) gets the namespace and ABI rules only.
{ lib }:
template:
let
  namespaceCalls = [ "unshare" "setns" "clone" "clone3" ];
  deniedList = if template.seccompDenied == null then [ ] else template.seccompDenied;
  denied = builtins.filter (call: !(builtins.elem call namespaceCalls)) deniedList;
  namespacesAllowed = template.seccompDenied != null && !(builtins.elem "unshare" template.seccompDenied);
in
{
  NoNewPrivileges = true;
  LockPersonality = true;
  RestrictNamespaces = !namespacesAllowed;
  # Other ABIs (i386's int 0x80, x32) are refused: the filter's names are the native ones.
  SystemCallArchitectures = "native";
  SystemCallErrorNumber = "EPERM";
}
// lib.optionalAttrs (denied != [ ]) {
  SystemCallFilter = "~" + lib.concatStringsSep " " denied;
}

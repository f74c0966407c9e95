#!/usr/bin/env bash
# Usage: reachable-by-others.sh DIR
# Whether an account other than root (nobody, uid 65534, with no groups) can reach DIR and read
# in it, checked as that account. Forage's configured user runs forage-ctl from this checkout,
# its tests run programs from it as other accounts, and Nix's build users read its node_modules:
# a checkout under a private directory (root's /root, a home made 0700) works for root alone.
# Exits 0 when it can; otherwise prints the first directory on the way that stops it, exits 1.
# Exits 2, saying why on stderr, when it cannot check (setpriv missing, or not allowed to switch).
set -euo pipefail
dir=$(realpath "$1")
as_other() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
if ! as_other true 2>/dev/null; then
  echo "reachable-by-others.sh: cannot run a program as uid 65534 here (setpriv missing, or not root): not checked" >&2
  exit 2
fi
if as_other test -r "$dir" -a -x "$dir"; then exit 0; fi
walked=""
IFS=/ read -ra parts <<< "${dir#/}"
for part in "${parts[@]}"; do
  walked="$walked/$part"
  if ! as_other test -x "$walked"; then
    echo "$walked"
    exit 1
  fi
done
echo "$dir"
exit 1

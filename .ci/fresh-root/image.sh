#!/usr/bin/env bash
# The pristine root that .ci/fresh-root/run.sh tests the install on: Debian 12 as a new machine
# of this kind is before anyone works on it (Debian 12, the machine's Node and npm, its apt and
# npm configuration, the CAs it trusts) and nothing else, so a missing install step fails here.
#
#   image.sh key         prints the cache key: a hash of everything the root is built from
#   image.sh build OUT   builds the root and writes it to the tarball OUT
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

suite=bookworm
# minbase: Essential and apt only, the smallest Debian 12 a user may call fresh.
variant=minbase

# The machine's active apt sources (the mirror comes from here: the repository names none).
host_sources() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    if [ -s "$f" ]; then echo "$f"; fi
  done
}

# Keyrings the active sources name with Signed-By (deb822) or [signed-by=…] (one-line).
host_keyrings() {
  host_sources | xargs grep -h -o -i -E '(^Signed-By:[[:space:]]*|signed-by=)/[^] ]+' |
    sed -E 's/^[^/]*//' | sort -u
}

# The apt configuration copied into the root: how this machine reaches its sources.
# auth.conf(.d) is left out: credentials have no place in a cached root.
host_apt_config() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d /etc/apt/apt.conf.d /etc/apt/preferences.d \
    /etc/apt/trusted.gpg /etc/apt/trusted.gpg.d /etc/apt/keyrings; do
    if [ -e "$f" ]; then echo "$f"; fi
  done
  host_keyrings
}

# npm's user and global configuration as this machine kind ships it (it names no registry).
host_npm_config() {
  local f
  for f in /root/.npmrc /etc/npmrc /usr/etc/npmrc; do
    if [ -e "$f" ]; then echo "$f"; fi
  done
}

# The CAs this machine adds to Debian's: the registries are reached through them, so npm in the
# root must trust them too (npm's cafile is the system bundle).
host_local_cas() {
  if [ -d /usr/local/share/ca-certificates ]; then echo /usr/local/share/ca-certificates; fi
}

key() {
  {
    echo "suite=$suite variant=$variant"
    dpkg-query -W -f '${Package} ${Version}\n' nodejs
    echo "npm $(npm --version)"
    # Contents, not names: a changed mirror, option or key gives a new root.
    { host_apt_config; host_npm_config; host_local_cas; } | xargs -I{} find {} -type f -print0 | sort -z |
      xargs -0 sha256sum
    sha256sum < "$here/image.sh" # contents only: the checkout may be anywhere
  } | sha256sum | cut -c1-16
}

# This machine kind ships Node in its image: the nodejs package of a NodeSource source that is
# disabled once the machine is made (its apt sources offer only Debian's Node 18), with npm
# upgraded in place. The root gets that Node as it stands: the package's files, npm as it is
# now (the package's own file list names the npm it was built with), its control data and
# maintainer scripts, so dpkg in the root knows it and apt installs what it depends on.
node_deb() {
  local out=$1 pkg
  pkg=$(mktemp -d "$work/nodejs.XXXXXX")
  mkdir "$pkg/DEBIAN"
  { dpkg-query -L nodejs | grep -v '^/usr/lib/node_modules/npm/'; find /usr/lib/node_modules/npm; } |
    while read -r path; do if [ -e "$path" ] || [ -L "$path" ]; then echo "${path#/}"; fi; done |
    tar -C / --no-recursion -cf - -T - | tar -C "$pkg" -xf -
  dpkg-query -s nodejs | grep -v -E '^(Status|Conffiles):' > "$pkg/DEBIAN/control"
  for script in preinst postinst prerm postrm; do
    if [ -f "/var/lib/dpkg/info/nodejs.$script" ]; then cp "/var/lib/dpkg/info/nodejs.$script" "$pkg/DEBIAN/$script"; fi
  done
  dpkg-deb --build -Znone --root-owner-group "$pkg" "$out" > /dev/null
  rm -rf "$pkg"
}

build() {
  local out=$1 root
  work=$(mktemp -d /var/tmp/forage-root-image.XXXXXX)
  root="$work/root"
  trap 'rm -rf --one-file-system "$work"' EXIT
  node_deb "$work/nodejs.deb"
  mapfile -t sources < <(host_sources)
  # The host's source files are the mirror arguments: the root is built from exactly the
  # archive (and the updates and security suites) this machine installs from. The host's
  # apt.conf.d is not passed to mmdebstrap: its DPkg hooks would run on the host's paths.
  # The file-mirror-automount hook makes the Node package visible to dpkg inside the root.
  mmdebstrap --quiet --mode=root --variant="$variant" --include="$work/nodejs.deb" \
    --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount "$suite" "$root" "${sources[@]}"
  rm -rf "${root:?}$work" "$root/etc/apt/sources.list" "$root/etc/apt/sources.list.d"
  # apt, npm and trust configured as on this machine (the keyrings under /usr/share come along).
  { host_apt_config; host_npm_config; host_local_cas; } | sed 's|^/||' | tar -C / -cf - -T - | tar -C "$root" -xf -
  chroot "$root" update-ca-certificates > /dev/null
  # The root has no init and shares the host's network while install.sh runs: a package's
  # service (sshd) must not start there. This machine kind has the same file (a Docker-style
  # image), so install.sh sees what it sees here.
  printf '#!/bin/sh\n# No services start in this root (Forage CI).\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
  # Numeric owners: the root's users are not the host's. Extended attributes keep file capabilities.
  tar -C "$root" --numeric-owner --xattrs --xattrs-include='*' -cf "$out.partial" .
  mv "$out.partial" "$out"
}

if ! dpkg-query -W nodejs > /dev/null 2>&1; then
  echo "image.sh: this machine's Node is not Debian's nodejs package; the root is given the machine's own Node from that package" >&2
  exit 1
fi
case "${1:-}" in
  key) key ;;
  build) build "$2" ;;
  *) echo "usage: image.sh key | image.sh build OUT.tar" >&2; exit 64 ;;
esac

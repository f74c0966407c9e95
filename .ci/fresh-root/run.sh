#!/usr/bin/env bash
# CI stage: the README's install on a fresh machine. The machines CI runs on keep what earlier
# work installed, so `bash scripts/install.sh && npm test` there can pass while it fails for a
# new user. Here it runs in a pristine Debian 12 root instead: install.sh exactly as a user runs
# it, then a smoke test (smoke.sh), the README's example (`npm run example`) and its test command
# (`npm test`, the whole suite, after the install.sh of the first step), all offline.
#
# The root is built once (image.sh, 2-3 minutes) and cached as a tarball in /var/cache/forage-ci,
# keyed by everything it is built from; every run unpacks a new copy onto a tmpfs, so no run
# sees what install.sh did in an earlier one.
#
# Why not systemd-nspawn: the README's example starts a systemd-nspawn container and puts it in
# cgroups of its own, which needs the host's cgroup hierarchies writable. A root of our own
# (enter.sh: pivot_root, not chroot, which forbids user namespaces) sees them; inside
# systemd-nspawn, /sys and every /sys/fs/cgroup controller are read-only.
# Each step runs in that root in its own mount and PID namespaces (enter.sh), so no mount or
# process outlives it; the offline steps also get a network namespace with only loopback, so the
# example's links and nftables tables never touch the host's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=/var/cache/forage-ci

# The whole stage runs in a mount namespace of its own: the root's tmpfs (and every mount made
# while building the image) goes when the stage ends, however it ends. A tmpfs makes the root a
# mount point (see enter.sh) and is quick to drop: deleting a used root (tens of thousands of
# files) from this disk took most of a minute.
if [ -z "${FORAGE_FRESH_ROOT_NAMESPACE:-}" ]; then
  exec unshare --mount --propagation private env FORAGE_FRESH_ROOT_NAMESPACE=1 bash "$0" "$@"
fi

root=""
timings=()
started=$SECONDS
current="" current_start=0 # the step running now, named if it fails

cleanup() {
  local status=$?
  if [ -n "$root" ]; then
    if mountpoint -q "$root"; then umount "$root"; fi
    rmdir "$root"
  fi
  echo "fresh-root: ${timings[*]:-no step finished} total $((SECONDS - started))s"
  if [ "$status" -ne 0 ]; then
    echo "fresh-root: FAILED (exit $status)${current:+ in \"$current\" after $((SECONDS - current_start))s}" >&2
  fi
}
trap cleanup EXIT

# step NAME COMMAND…: runs and times one step.
step() {
  local name=$1 start=$SECONDS
  shift
  echo "== fresh-root: $name"
  current=$name current_start=$start
  "$@"
  current=""
  timings+=("$name $((SECONDS - start))s;")
  echo "== fresh-root: $name took $((SECONDS - start))s"
}

# in_root [UNSHARE-OPTION…] -- COMMAND…: runs a command in the root (see enter.sh).
in_root() {
  local options=()
  while [ "$1" != -- ]; do options+=("$1"); shift; done
  shift
  unshare --mount --propagation private --pid --fork --kill-child "${options[@]}" \
    "$here/enter.sh" "$root" "$@"
}

# The tools this stage needs on the host, installed here when missing (a fresh CI machine).
tools() {
  local missing=()
  command -v mmdebstrap > /dev/null || missing+=(mmdebstrap)
  command -v ip > /dev/null || missing+=(iproute2)
  if [ "${#missing[@]}" -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null
  fi
}

# Builds the pristine root into the cache, replacing roots built from other inputs.
build_image() {
  mkdir -p "$cache"
  chmod 700 "$cache"
  rm -f "$cache"/debian-root-*.tar "$cache"/debian-root-*.tar.partial
  bash "$here/image.sh" build "$1"
}

# A new copy of the pristine root, with a clone of the repository in /opt/forage (where the README
# says to clone: other accounts must reach it) and this machine's name service files (a new
# machine has its own).
unpack() {
  root=$(mktemp -d /var/tmp/forage-fresh-root.XXXXXX)
  mount -t tmpfs -o mode=755 tmpfs "$root"
  tar -C "$root" --numeric-owner --xattrs --xattrs-include='*' -xf "$1"
  cp /etc/resolv.conf /etc/hosts "$root/etc/"
  git clone --quiet --no-hardlinks "$repo" "$root/opt/forage"
}

step tools tools
image="$cache/debian-root-$(bash "$here/image.sh" key).tar"
if [ -f "$image" ]; then
  echo "fresh-root: cached root $image"
else
  step "build root (cache miss)" build_image "$image"
fi
step "unpack root" unpack "$image"
step "install.sh" in_root -- bash scripts/install.sh
step "smoke test (offline)" in_root --net -- bash .ci/fresh-root/smoke.sh
step "npm run example (offline)" in_root --net -- npm run example
# The README's test command, the whole suite, where a new user runs it (install.sh ran above; the
# tests send packets only to loopback and to namespaces they make, so loopback is all they need).
step "npm test (offline)" in_root --net -- npm test

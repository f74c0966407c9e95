#!/usr/bin/env bash
# Installs everything Forage's build and tests need on a fresh Debian 12 machine, then the npm
# dependencies. Idempotent: packages already present are not touched, and apt-get update runs
# only when something is missing. Run as root (or with sudo available).
set -euo pipefail
cd "$(dirname "$0")/.."

# tool → Debian package providing it
declare -A packages=(
  [nix-instantiate]=nix-bin
  [nix-build]=nix-bin
  [nft]=nftables
  [ip]=iproute2
  [unshare]=util-linux
  [systemd-nspawn]=systemd-container
  # The gvisor runtime: gVisor's OCI runtime (its own kernel between the agent and the host's).
  [runsc]=runsc
  [systemd-tmpfiles]=systemd
  [git]=git
  [tmux]=tmux
  [ssh]=openssh-client
  [sshd]=openssh-server
  [busybox]=busybox-static
  [ping]=iputils-ping
  [conntrack]=conntrack
  [gcc]=gcc
  [keyctl]=keyutils
  [btrfs]=btrfs-progs
  # The approvals' desktop notification, and its test: a session bus and notify-send on it.
  [dbus-daemon]=dbus-daemon
  [notify-send]=libnotify-bin
  # Tests that need an account of their own (the push gate, the desktop notification).
  [useradd]=passwd
  # The README's commands run root's forage-ctl with sudo; Debian leaves it out when root has a
  # password at installation.
  [sudo]=sudo
)

missing=()
for tool in "${!packages[@]}"; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("${packages[$tool]}")
done
# nft names protocols (tcp, icmp) from /etc/protocols when it lists a table: without it, what
# forage reads back from its tables (denials, status) says numbers. A minimal root lacks it.
[ -e /etc/protocols ] || missing+=(netbase)
# Debian's nix-bin alone cannot build: its default build-users-group is "nixbld", which only
# nix-setup-systemd creates (with the build users and /etc/nix/nix.conf).
getent group nixbld >/dev/null 2>&1 || missing+=(nix-setup-systemd)
# The seccomp helper (scripts/build-native.sh) links statically: it needs libc.a, not a tool.
dpkg-query -W -f='${Status}' libc6-dev 2>/dev/null | grep -q "ok installed" || missing+=(libc6-dev)

if [ "${#missing[@]}" -gt 0 ]; then
  mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
  echo "install.sh: installing Debian packages: ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# jj for the workspace tests and sandboxes: Debian 12 does not package it (see the script).
if ! command -v jj > /dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then bash scripts/install-jj.sh; else sudo bash scripts/install-jj.sh; fi
fi

# Tests must never reach a binary cache (the machines have no network but loopback).
if [ -w /etc/nix/nix.conf ] && ! grep -q '^substituters' /etc/nix/nix.conf; then
  echo 'substituters =' >> /etc/nix/nix.conf
fi

echo "install.sh: npm ci"
npm ci --no-audit --no-fund --loglevel=error

# forage-ctl on PATH, as the README's commands type it: a link to this checkout's build (moving
# the checkout breaks it; run install.sh again from the new place).
echo "install.sh: npm run build"
npm run --silent build
if [ "$(id -u)" -eq 0 ]; then
  ln -sfn "$PWD/dist/bin/main.js" /usr/local/bin/forage-ctl
  echo "install.sh: forage-ctl is /usr/local/bin/forage-ctl (-> $PWD/dist/bin/main.js)"
  reachable=0
  blocked=$(bash scripts/reachable-by-others.sh "$PWD") || reachable=$?
  if [ "$reachable" -eq 1 ]; then
    echo "install.sh: warning: $blocked keeps other accounts out of this checkout ($PWD): forage-ctl works for root" >&2
    echo "  alone here (your user cannot run it without sudo), and npm test fails (its tests run programs from the" >&2
    echo "  checkout as other accounts). Clone it where others can read, e.g. /opt/forage, and run install.sh there." >&2
  fi
else
  echo "install.sh: to have forage-ctl on PATH, run: sudo ln -sfn '$PWD/dist/bin/main.js' /usr/local/bin/forage-ctl"
fi

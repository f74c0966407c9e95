#!/usr/bin/env bash
# Installs jj (Jujutsu) for Forage's workspace tests and host-root sandboxes on Debian 12, which
# does not package it. Sid's jujutsu needs sid's C library: both are downloaded through a private
# apt state in a temporary directory (sid is added to no system source list, so the system is
# never upgraded from it), unpacked under /usr/local/lib/forage-jj, and /usr/local/bin/jj starts
# jj through that library's own loader. Idempotent: a working jj is left alone.
set -euo pipefail

if command -v jj > /dev/null 2>&1 && jj --version > /dev/null 2>&1; then exit 0; fi
if [ "$(uname -m)" != x86_64 ]; then
  echo "install-jj.sh: only x86_64 is handled; install jj yourself (https://jj-vcs.github.io/jj/)" >&2
  exit 1
fi

# The Debian archive this machine already uses (so a mirror or proxy keeps working).
mirror=$(bash "$(dirname "$0")/debian-mirror.sh")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
cat > "$work/sid.sources" << SOURCES
Types: deb
URIs: $mirror
Suites: sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
apt_private=(
  -o "Dir::Etc::sourcelist=$work/sid.sources" -o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$work/lists"
  -o "Dir::Cache=$work/cache" -o Dir::State::status=/dev/null -o APT::Sandbox::User=root
)
echo "install-jj.sh: downloading jujutsu and its C library from Debian sid ($mirror)"
apt-get "${apt_private[@]}" update -qq
(cd "$work/debs" && apt-get "${apt_private[@]}" download -qq jujutsu libc6 libmimalloc3)

prefix=/usr/local/lib/forage-jj
rm -rf "$prefix.new"
mkdir -p "$prefix.new"
for deb in "$work"/debs/*.deb; do dpkg-deb -x "$deb" "$prefix.new"; done
rm -rf "$prefix"
mv "$prefix.new" "$prefix"

cat > /usr/local/bin/jj << 'WRAPPER'
#!/bin/sh
# jj from Debian sid, run with sid's C library (installed by Forage's scripts/install-jj.sh).
lib=/usr/local/lib/forage-jj/usr/lib/x86_64-linux-gnu
exec "$lib/ld-linux-x86-64.so.2" --library-path "$lib:/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu" /usr/local/lib/forage-jj/usr/bin/jj "$@"
WRAPPER
chmod 755 /usr/local/bin/jj
echo "install-jj.sh: $(jj --version)"

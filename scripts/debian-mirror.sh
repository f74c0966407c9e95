#!/usr/bin/env bash
# Prints the Debian archive this machine's apt already uses for bookworm itself (not -security or
# -updates), from deb822 sources or one-line sources.list entries, so Forage's installers follow a
# mirror or proxy and the repository names no archive host. Fails, saying what to do, if none.
# APT_SOURCES_DIR (default /etc/apt) lets the CI stage read another root's configuration.
set -euo pipefail
apt_dir=${APT_SOURCES_DIR:-/etc/apt}

# deb822 stanzas (blank-line separated): URIs and Suites may come in any order.
deb822_mirrors() {
  awk 'BEGIN { RS = "" } {
    uri = ""; serves = 0
    n = split($0, lines, "\n")
    for (i = 1; i <= n; i++) {
      split(lines[i], field, /[ \t]+/)
      if (field[1] == "URIs:") uri = field[2]
      if (field[1] == "Suites:") for (j = 2; j in field; j++) if (field[j] == "bookworm") serves = 1
    }
    if (serves && uri != "") print uri
  }' "$@"
}

# One-line form, bracketed options removed first: deb [opts] URI SUITE COMPONENTS…
one_line_mirrors() {
  awk '$1 == "deb" { sub(/\[[^]]*\][ \t]*/, ""); if ($3 == "bookworm") print $2 }' "$@"
}

shopt -s nullglob
mirrors=()
deb822=("$apt_dir"/sources.list.d/*.sources)
one_line=("$apt_dir"/sources.list "$apt_dir"/sources.list.d/*.list)
[ "${#deb822[@]}" -eq 0 ] || mapfile -t -O "${#mirrors[@]}" mirrors < <(deb822_mirrors "${deb822[@]}")
for file in "${one_line[@]}"; do
  [ -f "$file" ] && mapfile -t -O "${#mirrors[@]}" mirrors < <(one_line_mirrors "$file")
done

if [ "${#mirrors[@]}" -eq 0 ]; then
  echo "debian-mirror.sh: no apt source for Debian bookworm in $apt_dir/sources.list or $apt_dir/sources.list.d/; add your Debian mirror there" >&2
  exit 1
fi
echo "${mirrors[0]}"

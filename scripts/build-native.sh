#!/usr/bin/env bash
# Builds Forage's native helper (native/forage-enter.c, filter.c, join.c) into dist/native/, statically linked so it
# runs inside any sandbox root (the host's /usr or a NixOS system). Needs a C compiler and a static
# libc (Debian: gcc libc6-dev, which scripts/install.sh installs). CC overrides the compiler.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p dist/native
"${CC:-gcc}" -static -O2 -Wall -Wextra -Werror -o dist/native/forage-enter.tmp native/forage-enter.c native/filter.c native/join.c
mv dist/native/forage-enter.tmp dist/native/forage-enter

#!/usr/bin/env bash
# Builds Forage's native helpers into dist/native/, statically linked: native/forage-enter.c (runs
# inside any sandbox root: the host's /usr or a NixOS system) and native/forage-set-elements.c
# (the network guard's writer of set elements). Needs a C compiler, a static libc and the kernel's
# UAPI headers (Debian: gcc libc6-dev, which scripts/install.sh installs). CC overrides the compiler.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p dist/native
for helper in forage-enter forage-set-elements; do
  "${CC:-gcc}" -static -O2 -Wall -Wextra -Werror -o "dist/native/$helper.tmp" "native/$helper.c"
  mv "dist/native/$helper.tmp" "dist/native/$helper"
done

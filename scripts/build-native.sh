#!/usr/bin/env bash
# Builds Forage's native helpers into dist/native/, statically linked: forage-enter (native/
# forage-enter.c, filter.c, join.c, terminal.c: the way into a sandbox, which also runs inside any sandbox
# root, the host's /usr or a NixOS system), forage-set-elements (native/forage-set-elements.c:
# the network guard's writer of set elements), forage-git-relay (native/forage-git-relay.c: the
# push gate's two ends that git runs, the ext:: relay and the outbox's hooks), forage-mounts (native/forage-mounts.c: a
# sandbox start's host-side mounts in one process) and forage-exec-only (native/forage-exec-only.c:
# Landlock, so that `forage-ctl git` runs nothing but git's own programs), and gvisor-statx.so
# (native/gvisor-statx.c: a shim the gvisor runtime preloads). Needs a C compiler, a static libc and the kernel's
# UAPI headers (Debian: gcc libc6-dev, which scripts/install.sh installs). CC overrides the compiler.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p dist/native
build() {
  local helper="$1"
  shift
  "${CC:-gcc}" -static -O2 -Wall -Wextra -Werror -o "dist/native/$helper.tmp" "$@"
  mv "dist/native/$helper.tmp" "dist/native/$helper"
}
build forage-enter native/forage-enter.c native/filter.c native/join.c native/terminal.c
build forage-set-elements native/forage-set-elements.c
build forage-mounts native/forage-mounts.c native/pin-tree.c native/adopt-binds.c
build forage-git-relay native/forage-git-relay.c
build forage-exec-only native/forage-exec-only.c
# Not static: a shared object the gvisor runtime preloads into the sandbox's programs (see its file).
"${CC:-gcc}" -shared -fPIC -O2 -Wall -Wextra -Werror -o dist/native/gvisor-statx.so.tmp native/gvisor-statx.c
mv dist/native/gvisor-statx.so.tmp dist/native/gvisor-statx.so

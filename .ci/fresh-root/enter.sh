#!/usr/bin/env bash
# Runs a command in the root as a new machine's root user would, in the checkout (/opt/forage).
#   enter.sh ROOT COMMAND [ARG…]
# Meant to run as PID 1 of its own mount and PID namespaces (run.sh starts it with
# `unshare --mount --propagation private --pid --fork`): the mounts made here exist only in that
# namespace and every process started inside dies with it, so nothing outlives a step, even
# one that is killed.
set -euo pipefail
root=$1
shift

# ROOT is a mount point (run.sh puts it on a tmpfs), as / is on a machine: tools that change the
# propagation of / fail on a chroot whose root is a plain directory (`ip -n`, which the README's
# example runs for its sandbox's link: "mount --make-rslave /" failed: Invalid argument).
mount -t proc proc "$root/proc" # this PID namespace's processes only
# A sysfs of this step's own: its /sys/class/net shows the interfaces of the network namespace
# the step runs in (the host's /sys shows the host's, where a sandbox's link made here is not, and
# the network guard took its link for gone). The host's cgroup hierarchies (the sandboxes' are put
# in them) and its other filesystems under /sys are bound in.
mount -t sysfs sysfs "$root/sys"
for submount in /sys/fs/cgroup /sys/fs/bpf /sys/kernel/security; do
  if mountpoint -q "$submount"; then mount --rbind "$submount" "$root$submount"; fi
done
mount --rbind /dev "$root/dev"  # with /dev/pts and /dev/shm
mount -t tmpfs -o mode=755 tmpfs "$root/run"
mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
# A step given a network namespace of its own (unshare --net) has only loopback; bring it up.
# In the host's namespace this changes nothing.
ip link set lo up

# The root becomes this mount namespace's own root (pivot_root), not a chroot: the kernel refuses
# a chrooted process a user namespace (create_user_ns: EPERM when current_chrooted()), and the
# sandboxes' network guard, the seccomp tests' controls and a new user's machine all make them.
# The host's root, moved aside, is then detached: nothing of it is left to reach.
cd "$root"
mkdir -p .host-root
pivot_root . .host-root
umount -l /.host-root
rmdir /.host-root

exec /usr/bin/env -i -C /opt/forage HOME=/root USER=root LOGNAME=root SHELL=/bin/bash \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 TERM=dumb CI="${CI:-}" "$@"

/*
 * gvisor-statx.so: preloaded (/etc/ld.so.preload) into every dynamically linked program of a
 * gvisor sandbox. gVisor's kernel in Debian 12's runsc (2022) refuses statx() with
 * AT_NO_AUTOMOUNT (EINVAL), a flag coreutils 9.1 always passes, so `ls -l` and `stat` fail on
 * every file. gVisor has no automounts, so the flag means nothing there: on EINVAL the call is
 * made again without it. Any other answer is the kernel's own. (A seccomp rule cannot help:
 * glibc's fallback for an ENOSYS statx passes the same flag to fstatat, which refuses it too.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *buffer) {
  long result = syscall(SYS_statx, dirfd, path, flags, mask, buffer);
  if (result < 0 && errno == EINVAL && (flags & AT_NO_AUTOMOUNT) != 0)
    result = syscall(SYS_statx, dirfd, path, flags & ~AT_NO_AUTOMOUNT, mask, buffer);
  return (int)result;
}

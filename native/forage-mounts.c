/*
 * forage-mounts bind POINT...              (the sources are this process's fds 3, 4, ... in order)
 * forage-mounts unmount POINT...
 * forage-mounts resize-tmpfs PID PATH BYTES
 * forage-mounts make-points UID GID {d PATH "" | f PATH TEXT}...
 * forage-mounts pin ROOT {ro|rw|link PATH "" | from PATH SOURCE}...   (pin-tree.c)
 * forage-mounts adopt PID HOSTNAME {ro|rw|ro-inside|rw-inside SOURCE TARGET}...  (adopt-binds.c)
 *
 * The host-side mounts of a sandbox's start, made by root in one process instead of a mount(8)
 * or umount(8) process each (~5-10 ms apiece; a sandbox stages several):
 *
 * bind: binds the file each inherited descriptor refers to onto its mount point, private (the
 *   staging of user-controlled bind sources, runtime/mounts/staged-binds.ts, which opened and
 *   checked them). The source is /proc/self/fd/N, which the kernel follows to the descriptor's
 *   own file: no path is resolved again. All or nothing: on a failure the points bound so far
 *   are unmounted again and the exit status is 1.
 * unmount: detaches each point with whatever is mounted below it (a staged workspace holds its
 *   pins), never following a link at the last component; carries on past a failure, reports
 *   each, exit status 1 if any failed.
 * resize-tmpfs: sets the size of the tmpfs at PATH as process PID sees it (its mount namespace and
 *   root: a container's /run), keeping the mount's flags (nosuid, nodev, ...), which a remount
 *   would otherwise clear. Anything but a tmpfs at PATH is refused ("not a tmpfs"): a remount
 *   without MS_BIND changes the whole filesystem under a mount, and "size=" means nothing (or
 *   something else) to other filesystems.
 * make-points: as UID:GID (no supplementary groups), makes each mount point a workspace's
 *   stand-in needs (runtime/workspaces/placeholders.ts): `d` a directory, `f` a file holding TEXT,
 *   never over anything that exists (not even a dangling link). Prints one line a point, in
 *   order: "made", "exists", "denied" (the user may not create it there: EACCES, EPERM, EROFS)
 *   or "failed REASON"; the exit status is 0 all the same (the caller decides).
 *
 * Errors go to stderr as "forage-mounts: WHAT: REASON".
 */
#define _GNU_SOURCE
#include "adopt-binds.h"
#include "pin-tree.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/mount.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* A whole decimal number, nothing else (strtol would take spaces, a sign, and wrap a minus). */
static int decimal(const char *text, unsigned long long max, unsigned long long *value) {
  if (text[0] < '0' || text[0] > '9') return -1;
  char *end;
  errno = 0;
  unsigned long long parsed = strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0' || parsed > max) return -1;
  *value = parsed;
  return 0;
}

static int fail(const char *what, const char *detail, int error) {
  fprintf(stderr, "forage-mounts: %s %s: %s\n", what, detail, strerror(error));
  return 1;
}

static int bind_descriptors(int count, char **points) {
  for (int i = 0; i < count; i++) {
    char source[32];
    snprintf(source, sizeof source, "/proc/self/fd/%d", 3 + i);
    int error = 0;
    if (mount(source, points[i], NULL, MS_BIND, NULL) != 0)
      error = errno;
    else if (mount(NULL, points[i], NULL, MS_PRIVATE, NULL) != 0) {
      error = errno;
      umount2(points[i], UMOUNT_NOFOLLOW);
    }
    if (error != 0) {
      for (int j = i - 1; j >= 0; j--) umount2(points[j], UMOUNT_NOFOLLOW);
      return fail("bind", points[i], error);
    }
  }
  return 0;
}

static int unmount_points(int count, char **points) {
  int status = 0;
  for (int i = 0; i < count; i++)
    if (umount2(points[i], UMOUNT_NOFOLLOW | MNT_DETACH) != 0) status = fail("unmount", points[i], errno);
  return status;
}

/* The mount(2) flags that keep a mount as statvfs reports it. */
static unsigned long mount_flags_of(unsigned long st_flags) {
  static const struct { unsigned long st, ms; } map[] = {
      {ST_RDONLY, MS_RDONLY},     {ST_NOSUID, MS_NOSUID},         {ST_NODEV, MS_NODEV},
      {ST_NOEXEC, MS_NOEXEC},     {ST_SYNCHRONOUS, MS_SYNCHRONOUS}, {ST_MANDLOCK, MS_MANDLOCK},
      {ST_NOATIME, MS_NOATIME},   {ST_NODIRATIME, MS_NODIRATIME}, {ST_RELATIME, MS_RELATIME},
#if defined(ST_NOSYMFOLLOW) && defined(MS_NOSYMFOLLOW)
      {ST_NOSYMFOLLOW, MS_NOSYMFOLLOW},
#endif
  };
  unsigned long flags = 0;
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (st_flags & map[i].st) flags |= map[i].ms;
  return flags;
}

static int resize_tmpfs(const char *pid_text, const char *path, const char *bytes_text) {
  unsigned long long pid, bytes;
  if (decimal(pid_text, INT_MAX, &pid) != 0 || pid == 0) return fail("resize-tmpfs", "pid", EINVAL);
  if (decimal(bytes_text, ULLONG_MAX, &bytes) != 0 || bytes == 0) return fail("resize-tmpfs", "bytes", EINVAL);
  if (path[0] != '/') return fail("resize-tmpfs", path, EINVAL);
  char proc[32];
  snprintf(proc, sizeof proc, "/proc/%llu", pid);
  /* The process's directory once: its root and namespace then come from that one process, and a
   * pid reused in the meantime fails here (ESRCH) instead of naming another. */
  int process = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (process < 0) return fail("resize-tmpfs", proc, errno);
  /* Its root first: where nspawn could not pivot_root it chrooted, and the namespace's own root
   * is then not the container's. */
  int root = openat(process, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root < 0) return fail("resize-tmpfs", "root", errno);
  int namespace = openat(process, "ns/mnt", O_RDONLY | O_CLOEXEC);
  if (namespace < 0) return fail("resize-tmpfs", "ns/mnt", errno);
  if (setns(namespace, CLONE_NEWNS) != 0) return fail("resize-tmpfs", "setns", errno);
  if (fchdir(root) != 0 || chroot(".") != 0) return fail("resize-tmpfs", "chroot", errno);
  struct statfs kind;
  if (statfs(path, &kind) != 0) return fail("resize-tmpfs", path, errno);
  if (kind.f_type != TMPFS_MAGIC) {
    fprintf(stderr, "forage-mounts: resize-tmpfs %s: not a tmpfs\n", path);
    return 1;
  }
  struct statvfs current;
  if (statvfs(path, &current) != 0) return fail("resize-tmpfs", path, errno);
  char options[48];
  snprintf(options, sizeof options, "size=%llu", bytes);
  if (mount(NULL, path, NULL, MS_REMOUNT | mount_flags_of(current.f_flag), options) != 0) return fail("resize-tmpfs", path, errno);
  return 0;
}

static int make_directory(const char *path) { return mkdir(path, 0777); }

/* A file holding `text`, never over anything (O_EXCL: not even through a dangling link). */
static int make_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return -1;
  size_t length = strlen(text), written = 0;
  while (written < length) {
    ssize_t n = write(fd, text + written, length - written);
    if (n <= 0) break;
    written += (size_t)n;
  }
  close(fd);
  return 0;
}

static int make_points(const char *uid_text, const char *gid_text, int count, char **triples) {
  unsigned long long uid, gid;
  if (decimal(uid_text, INT_MAX, &uid) != 0) return fail("make-points", "uid", EINVAL);
  if (decimal(gid_text, INT_MAX, &gid) != 0) return fail("make-points", "gid", EINVAL);
  if (count % 3 != 0) return fail("make-points", "arguments", EINVAL);
  /* Every kind known before anything is made: all or none of the request is taken. */
  for (int i = 0; i < count; i += 3)
    if (strcmp(triples[i], "d") != 0 && strcmp(triples[i], "f") != 0) return fail("make-points", triples[i], EINVAL);
  /* Never as root in a directory the user controls: the user's own rights decide. */
  if (setgroups(0, NULL) != 0 || setgid((gid_t)gid) != 0 || setuid((uid_t)uid) != 0) return fail("make-points", "setuid", errno);
  if (chdir("/") != 0) return fail("make-points", "chdir", errno);
  for (int i = 0; i < count; i += 3) {
    const char *kind = triples[i], *path = triples[i + 1], *text = triples[i + 2];
    int made = strcmp(kind, "d") == 0 ? make_directory(path) : make_file(path, text);
    int error = errno;
    if (made == 0)
      puts("made");
    else if (error == EEXIST)
      puts("exists");
    else if (error == EACCES || error == EPERM || error == EROFS)
      puts("denied");
    else
      printf("failed %s\n", strerror(error));
  }
  fflush(stdout);
  return 0;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "bind") == 0) return bind_descriptors(argc - 2, argv + 2);
  if (strcmp(mode, "unmount") == 0) return unmount_points(argc - 2, argv + 2);
  if (strcmp(mode, "resize-tmpfs") == 0 && argc == 5) return resize_tmpfs(argv[2], argv[3], argv[4]);
  if (strcmp(mode, "make-points") == 0 && argc >= 4) return make_points(argv[2], argv[3], argc - 4, argv + 4);
  if (strcmp(mode, "pin") == 0 && argc >= 3) return pin_tree(argv[2], argc - 3, argv + 3);
  if (strcmp(mode, "adopt") == 0 && argc >= 4) return adopt_binds(argv[2], argv[3], argc - 4, argv + 4);
  fprintf(stderr, "usage: forage-mounts bind POINT... | unmount POINT... | resize-tmpfs PID PATH BYTES | make-points UID GID {d PATH \"\" | f PATH TEXT}... | pin ROOT {ro|rw|link PATH \"\" | from PATH SOURCE}... | adopt PID HOSTNAME {ro|rw|ro-inside|rw-inside SOURCE TARGET}...\n");
  return 64;
}

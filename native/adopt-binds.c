/*
 * forage-mounts adopt PID HOSTNAME {ro|rw|ro-inside|rw-inside SOURCE TARGET}...
 *
 * Gives a running container (a warm pool's member, runtime/pool/) what a claim brings: its
 * hostname, and each SOURCE bound at TARGET as the container's init, PID, sees its files.
 * systemd-nspawn makes its binds only at its start; a member is started before anyone asks for
 * it, so its workspace, secrets and records come later, through this.
 *
 * How: each SOURCE is cloned on the host with open_tree (OPEN_TREE_CLONE | AT_RECURSIVE: the
 * staged workspace's pins come with it, each with its own read-only flag) into a detached tree,
 * made read-only as a whole for `ro` (mount_setattr, recursive), while this process is still in
 * the host's namespaces. Then it enters the container's UTS and mount namespaces and its root
 * (/proc/PID/root, as resize-tmpfs does), and moves each tree onto its TARGET (move_mount):
 * a detached tree may be attached in another namespace, a path of the host may not.
 *
 * `ro-inside` and `rw-inside` take SOURCE as the container sees it, cloned once inside: what
 * systemd-nspawn does for a bind onto /proc (the /proc masks' /dev/null is the container's own).
 *
 * SOURCEs are root's (staged mount points in root's 0700 directory, or root's own state files),
 * opened without following a link at the last component. TARGETs are resolved inside the
 * container without following any link (a member has run nothing but its placeholder, and even
 * so: never a link); missing directories are made (root's, 0755), and a missing last component
 * is made as the tree's kind (a directory, or an empty file 0644) as nspawn does for its binds.
 *
 * Stops at the first failure (exit status 1); the caller then removes the whole sandbox.
 */
#define _GNU_SOURCE
#include "adopt-binds.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

static int complain(const char *what, const char *detail, int error) {
  fprintf(stderr, "forage-mounts: adopt %s %s: %s\n", what, detail, strerror(error));
  return 1;
}

/* The descriptor of PATH's directory inside the current root, made where missing; no link followed. */
static int open_parents(char *path, char **last) {
  int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  char *component = path + 1, *slash;
  while (dir >= 0 && (slash = strchr(component, '/')) != NULL) {
    *slash = '\0';
    if (mkdirat(dir, component, 0755) != 0 && errno != EEXIST) {
      close(dir);
      return -1;
    }
    int next = openat(dir, component, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    *slash = '/';
    close(dir);
    dir = next;
    component = slash + 1;
  }
  *last = component;
  return dir;
}

/* The mount point at TARGET, of the tree's kind: made when missing, never a link. */
static int open_target(const char *target, int directory) {
  char path[PATH_MAX];
  if (target[0] != '/' || strlen(target) >= sizeof path || strstr(target, "/../") != NULL) {
    errno = EINVAL;
    return -1;
  }
  strcpy(path, target);
  char *last;
  int parent = open_parents(path, &last);
  if (parent < 0) return -1;
  if (*last == '\0' || strcmp(last, "..") == 0 || strcmp(last, ".") == 0) {
    close(parent);
    errno = EINVAL;
    return -1;
  }
  if (directory) {
    if (mkdirat(parent, last, 0755) != 0 && errno != EEXIST) return close(parent), -1;
  } else {
    int made = openat(parent, last, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (made >= 0)
      close(made);
    else if (errno != EEXIST)
      return close(parent), -1;
  }
  int point = openat(parent, last, O_PATH | O_NOFOLLOW | O_CLOEXEC | (directory ? O_DIRECTORY : 0));
  int error = errno;
  close(parent);
  if (point < 0 || directory) return errno = error, point;
  /* A file's bind goes onto a file only (a link opened O_PATH | O_NOFOLLOW is the link itself). */
  struct stat info;
  error = fstat(point, &info) != 0 ? errno : S_ISDIR(info.st_mode) ? EISDIR : S_ISREG(info.st_mode) ? 0 : EINVAL;
  if (error != 0) return close(point), errno = error, -1;
  return point;
}

/* A detached copy of what is mounted at SOURCE (with what is below it), read-only as a whole if asked. */
static int clone_source(const char *source, int readonly, int *tree, int *directory) {
  *tree = open_tree(AT_FDCWD, source, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE | AT_SYMLINK_NOFOLLOW);
  if (*tree < 0) return complain("source", source, errno);
  if (readonly) {
    struct mount_attr attributes = {.attr_set = MOUNT_ATTR_RDONLY};
    if (mount_setattr(*tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attributes, sizeof attributes) != 0)
      return complain("read-only", source, errno);
  }
  struct stat info;
  if (fstat(*tree, &info) != 0) return complain("source", source, errno);
  *directory = S_ISDIR(info.st_mode);
  return 0;
}

int adopt_binds(const char *pid_text, const char *hostname, int count, char **triples) {
  char *end;
  errno = 0;
  long pid = strtol(pid_text, &end, 10);
  if (pid_text[0] < '1' || pid_text[0] > '9' || *end != '\0' || errno != 0 || pid > INT_MAX)
    return complain("pid", pid_text, EINVAL);
  size_t name_length = strlen(hostname);
  if (name_length == 0 || name_length > 64) return complain("hostname", hostname, EINVAL);
  if (count % 3 != 0 || count / 3 > 256) return complain("arguments", "", EINVAL);
  int trees[256] = {0};
  int directory[256] = {0};
  int inside[256] = {0};
  /* Every mode known, and every host tree cloned, before anything inside changes. */
  for (int i = 0; i < count; i += 3) {
    const char *mode = triples[i];
    int readonly = strcmp(mode, "ro") == 0 || strcmp(mode, "ro-inside") == 0;
    inside[i / 3] = strcmp(mode, "ro-inside") == 0 || strcmp(mode, "rw-inside") == 0;
    if (!readonly && !inside[i / 3] && strcmp(mode, "rw") != 0) return complain("mode", mode, EINVAL);
    if (!inside[i / 3] && clone_source(triples[i + 1], readonly, &trees[i / 3], &directory[i / 3]) != 0) return 1;
  }
  char proc[32];
  snprintf(proc, sizeof proc, "/proc/%ld", pid);
  /* One process's directory: a pid reused meanwhile fails here instead of naming another. */
  int process = open(proc, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (process < 0) return complain("process", proc, errno);
  int root = openat(process, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
  int mounts = openat(process, "ns/mnt", O_RDONLY | O_CLOEXEC);
  int names = openat(process, "ns/uts", O_RDONLY | O_CLOEXEC);
  if (root < 0 || mounts < 0 || names < 0) return complain("namespaces of", proc, errno);
  if (setns(names, CLONE_NEWUTS) != 0) return complain("setns", "uts", errno);
  if (sethostname(hostname, name_length) != 0) return complain("hostname", hostname, errno);
  if (setns(mounts, CLONE_NEWNS) != 0) return complain("setns", "mnt", errno);
  /* Its root, not the namespace's: where nspawn could not pivot_root, it chrooted. */
  if (fchdir(root) != 0 || chroot(".") != 0) return complain("chroot", proc, errno);
  for (int i = 0; i < count; i += 3) {
    const char *mode = triples[i], *target = triples[i + 2];
    if (inside[i / 3] && clone_source(triples[i + 1], strcmp(mode, "ro-inside") == 0, &trees[i / 3], &directory[i / 3]) != 0)
      return 1;
    int point = open_target(target, directory[i / 3]);
    if (point < 0) return complain("target", target, errno);
    if (move_mount(trees[i / 3], "", point, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
      return complain("move", target, errno);
    close(point);
  }
  return 0;
}

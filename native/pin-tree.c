/*
 * forage-mounts pin ROOT {ro PATH "" | rw PATH "" | link PATH "" | from PATH SOURCE}...
 *
 * Assembles a workspace's tree in the staging directory before systemd-nspawn binds it (as one
 * recursive bind) into the container (runtime/mounts/staged-binds.ts): ROOT is the staged bind of
 * the workspace (a mount point in root's staging directory), each PATH a path inside it, done in
 * order:
 *   ro    what is at PATH (a file, a directory or a symbolic link) bound onto itself, read-only;
 *   rw    the same, writable (a directory that must not be renamed, or what is written under a
 *         read-only one);
 *   link  a symbolic link bound onto itself (it cannot be removed or renamed; it still reads);
 *   from  SOURCE (a stand-in root made in the staging directory) bound read-only onto PATH.
 *
 * Why the new mount API: a symbolic link can be a mount point only through it (open_tree on the
 * link's O_PATH descriptor, move_mount onto that same descriptor); mount(2) and nspawn's --bind
 * follow links. A link bound onto itself cannot be removed or renamed (EBUSY), and still reads.
 *
 * Why descriptors beneath ROOT: the workspace is the user's (and a running sandbox's agent's, when
 * two share it), so every PATH is resolved with openat2 beneath ROOT with no symbolic link
 * followed on the way (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS; a link as the last component is
 * opened itself, O_PATH | O_NOFOLLOW). The mount goes onto that very descriptor, never onto a
 * path looked up again, so nothing renamed in between can move a mount out of the workspace. A
 * link is pinned only where a link was asked for, and nothing else where one now is: a name
 * swapped for a link after forage-ctl looked (by another sandbox's agent sharing the folder)
 * fails the start instead of leaving what the link leads to unheld.
 *
 * Stops at the first failure (exit status 1): the caller then detaches the whole staged tree.
 */
#define _GNU_SOURCE
#include "pin-tree.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int pin_fail(const char *what, const char *path, int error) {
  fprintf(stderr, "forage-mounts: pin %s %s: %s\n", what, path, strerror(error));
  return 1;
}

/* PATH beneath ROOT, no link followed on the way; a link as the last component is itself. */
static int open_beneath(int root, const char *path) {
  struct open_how how = {
      .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
      .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
  };
  return (int)syscall(SYS_openat2, root, path, &how, sizeof how);
}

/* Clones the mount at `source` (just that one), sets its read-only flag, and moves it onto `target`. */
static int bind_onto(int source, int target, int read_only) {
  int tree = open_tree(source, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
  if (tree < 0) return -1;
  struct mount_attr attr = {.attr_set = read_only ? MOUNT_ATTR_RDONLY : 0, .attr_clr = read_only ? 0 : MOUNT_ATTR_RDONLY};
  int status = mount_setattr(tree, "", AT_EMPTY_PATH, &attr, sizeof attr);
  if (status == 0) status = move_mount(tree, "", target, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
  int error = errno;
  close(tree);
  errno = error;
  return status;
}

static int pin_one(int root, const char *kind, const char *path, const char *source_path) {
  int from = strcmp(kind, "from") == 0;
  if (path[0] == '\0' || path[0] == '/') return pin_fail(kind, path, EINVAL);
  int target = open_beneath(root, path);
  if (target < 0) return pin_fail(kind, path, errno);
  struct stat found = {0};
  if (fstat(target, &found) != 0 || (S_ISLNK(found.st_mode) != 0) != (strcmp(kind, "link") == 0)) {
    close(target);
    return pin_fail(kind, path, S_ISLNK(found.st_mode) ? ELOOP : EINVAL);
  }
  int source = from ? open(source_path, O_PATH | O_NOFOLLOW | O_CLOEXEC) : target;
  int status = 0;
  if (source < 0)
    status = pin_fail("source", source_path, errno);
  else if (bind_onto(source, target, strcmp(kind, "rw") != 0 && strcmp(kind, "link") != 0) != 0)
    status = pin_fail(kind, path, errno);
  if (from && source >= 0) close(source);
  close(target);
  return status;
}

int pin_tree(const char *root_path, int count, char **triples) {
  if (count % 3 != 0) return pin_fail("arguments", root_path, EINVAL);
  /* Every kind known before anything is mounted. */
  for (int i = 0; i < count; i += 3)
    if (strcmp(triples[i], "ro") != 0 && strcmp(triples[i], "rw") != 0 && strcmp(triples[i], "link") != 0 && strcmp(triples[i], "from") != 0)
      return pin_fail("kind", triples[i], EINVAL);
  int root = open(root_path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (root < 0) return pin_fail("root", root_path, errno);
  for (int i = 0; i < count; i += 3)
    if (pin_one(root, triples[i], triples[i + 1], triples[i + 2]) != 0) return 1;
  close(root);
  return 0;
}

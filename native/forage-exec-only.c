/*
 * forage-exec-only PATH... -- PROGRAM ARG...
 *
 * Runs PROGRAM (an absolute path) so that it, and everything it starts, can execute only the
 * files at or under the PATHs given: a Landlock ruleset that handles nothing but
 * LANDLOCK_ACCESS_FS_EXECUTE, with each PATH allowed it (plus no_new_privs, which Landlock
 * needs). `forage-ctl git` runs the host's git this way in a workspace an agent wrote: git's own
 * programs run, and a command the agent's configuration names (a filter, an fsmonitor, a hook,
 * `sh -c …`) fails to start, even one set after forage-ctl looked (runtime/workspaces/safe-git.ts).
 * Reading and writing files is not restricted.
 *
 * Exit status: PROGRAM's own (it replaces this process); 64 for a usage error; 69
 * (EX_UNAVAILABLE) when this kernel has no Landlock (the caller decides what to do then); 71 when
 * a PATH cannot be opened or the ruleset not made.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int fail(const char *what, const char *detail, int error, int status) {
  fprintf(stderr, "forage-exec-only: %s %s: %s\n", what, detail, strerror(error));
  return status;
}

/* Allows executing what lies at or under `path` (a file or a directory). */
static int allow(int ruleset, const char *path) {
  int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) return -1;
  struct landlock_path_beneath_attr rule = {.allowed_access = LANDLOCK_ACCESS_FS_EXECUTE, .parent_fd = fd};
  int status = (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
  int error = errno;
  close(fd);
  errno = error;
  return status;
}

int main(int argc, char **argv) {
  int split = 1;
  while (split < argc && strcmp(argv[split], "--") != 0) split++;
  if (split >= argc - 1 || argv[split + 1][0] != '/') {
    fprintf(stderr, "usage: forage-exec-only PATH... -- /PROGRAM ARG...\n");
    return 64;
  }
  struct landlock_ruleset_attr attr = {.handled_access_fs = LANDLOCK_ACCESS_FS_EXECUTE};
  int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (ruleset < 0) {
    if (errno == ENOSYS || errno == EOPNOTSUPP) return fail("landlock", "ruleset", errno, 69);
    return fail("landlock", "ruleset", errno, 71);
  }
  for (int i = 1; i < split; i++)
    if (allow(ruleset, argv[i]) != 0) return fail("allow", argv[i], errno, 71);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fail("prctl", "no_new_privs", errno, 71);
  if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) return fail("landlock", "restrict", errno, 71);
  close(ruleset);
  execv(argv[split + 1], argv + split + 1);
  return fail("exec", argv[split + 1], errno, 71);
}

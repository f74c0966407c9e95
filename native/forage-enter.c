/*
 * forage-enter [--audit-id=N] FILTER COMMAND [ARG...]
 *
 * The last step on the way into a Forage sandbox, run inside its namespaces and root (after
 * nsenter, before setpriv drops to the agent; or as the host-root container's payload):
 *   1. joins a fresh anonymous session keyring, so nothing keeps the caller's (root's, the
 *      daemon's) session keyring, which would otherwise be shared by everything entering
 *      (unless keyctl is refused here already: see keyrings_closed);
 *   2. sets no_new_privs (the kernel requires it to load a filter without CAP_SYS_ADMIN, and it
 *      must hold for everything below anyway);
 *   3. loads the seccomp program FILTER (classic BPF, struct sock_filter[], written by forage-ctl's
 *      compiler) with SECCOMP_FILTER_FLAG_LOG, so every refusal reaches the kernel's audit log;
 *   4. with --audit-id, makes N its loginuid, so the kernel's records of those refusals (which
 *      carry it as `auid`) can be counted per sandbox; only root may, so it is best effort;
 *   5. closes what it opened and execs COMMAND (an absolute path: no PATH search).
 * Any failure stops here with exit status 126 and nothing is run: entering without the filter is
 * never an option. Built statically so it runs in any root (the host's /usr or a NixOS system).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* include/uapi/linux/keyctl.h; glibc has no wrapper and keyutils' header may be absent. */
#define FORAGE_KEYCTL_GET_KEYRING_ID 0
#define FORAGE_KEYCTL_JOIN_SESSION_KEYRING 1
#define FORAGE_KEY_SPEC_SESSION_KEYRING -3
/* The kernel's limit on a classic-BPF program (BPF_MAXINSNS). */
#define FORAGE_MAX_INSTRUCTIONS 4096

static int fail(const char *what, int error) {
  fprintf(stderr, "forage-enter: %s: %s\n", what, strerror(error));
  return 126;
}

/* Reads the program into `filter`; returns the number of instructions, or -errno. */
static long read_program(const char *path, struct sock_filter *filter) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return -errno;
  struct stat st;
  long result = -EINVAL;
  /* A whole number of 8-byte instructions, 1 to BPF_MAXINSNS, in a regular file. */
  if (fstat(fd, &st) != 0) {
    result = -errno;
  } else if (S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size % sizeof(struct sock_filter) == 0 &&
             st.st_size <= (off_t)(FORAGE_MAX_INSTRUCTIONS * sizeof(struct sock_filter))) {
    size_t want = (size_t)st.st_size, got = 0;
    while (got < want) {
      ssize_t n = read(fd, (char *)filter + got, want - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += (size_t)n;
    }
    result = got == want ? (long)(want / sizeof(struct sock_filter)) : -EIO;
  }
  close(fd);
  return result;
}

/*
 * True when keyctl is refused outright here (an outer seccomp filter, such as systemd-nspawn's for
 * its payload, or a kernel without keys): then nothing from here down reaches any keyring, since
 * filters are inherited, and there is no session keyring to leave.
 */
static int keyrings_closed(int join_error) {
  if (join_error != EPERM && join_error != ENOSYS) return 0;
  return syscall(SYS_keyctl, FORAGE_KEYCTL_GET_KEYRING_ID, FORAGE_KEY_SPEC_SESSION_KEYRING, 0) < 0 && (errno == EPERM || errno == ENOSYS);
}

/* Tags this process and its descendants with the sandbox's audit id (digits only). */
static void tag_audit_id(const char *id) {
  if (id[0] == '\0' || strspn(id, "0123456789") != strlen(id) || strlen(id) > 10) return;
  int fd = open("/proc/self/loginuid", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  /* Refused without CAP_AUDIT_CONTROL (the host root's payload runs as the agent): untagged. */
  if (write(fd, id, strlen(id)) < 0) errno = 0;
  close(fd);
}

int main(int argc, char **argv) {
  const char *audit_id = NULL;
  if (argc > 1 && strncmp(argv[1], "--audit-id=", 11) == 0) {
    audit_id = argv[1] + 11;
    argv++;
    argc--;
  }
  if (argc < 3 || argv[2][0] != '/') {
    fprintf(stderr, "usage: forage-enter [--audit-id=N] FILTER /ABSOLUTE/COMMAND [ARG...]\n");
    return 126;
  }
  static struct sock_filter filter[FORAGE_MAX_INSTRUCTIONS];
  long count = read_program(argv[1], filter);
  if (count < 0) return fail(argv[1], (int)-count);
  if (syscall(SYS_keyctl, FORAGE_KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0) {
    int error = errno;
    if (!keyrings_closed(error)) return fail("joining a new session keyring", error);
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return fail("setting no_new_privs", errno);
  struct sock_fprog program = {.len = (unsigned short)count, .filter = filter};
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_LOG, &program) != 0) return fail("loading the seccomp filter", errno);
  if (audit_id != NULL) tag_audit_id(audit_id);
  execv(argv[2], &argv[2]);
  return fail(argv[2], errno);
}

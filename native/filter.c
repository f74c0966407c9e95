/*
 * The part of forage-enter every way in shares: the sandbox's seccomp program, read from a file
 * forage-ctl compiled; a fresh session keyring; the audit id that lets refusals be counted.
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

#include "enter.h"

/* include/uapi/linux/keyctl.h; glibc has no wrapper and keyutils' header may be absent. */
#define FORAGE_KEYCTL_GET_KEYRING_ID 0
#define FORAGE_KEYCTL_JOIN_SESSION_KEYRING 1
#define FORAGE_KEY_SPEC_SESSION_KEYRING -3
/* The kernel's limit on a classic-BPF program (BPF_MAXINSNS). */
#define FORAGE_MAX_INSTRUCTIONS 4096

struct enter_filter {
  unsigned short length;
  struct sock_filter instructions[FORAGE_MAX_INSTRUCTIONS];
};

int enter_fail(const char *what, int error) {
  fprintf(stderr, "forage-enter: %s: %s\n", what, strerror(error));
  return FORAGE_FAILED;
}

struct enter_filter *enter_read_filter(const char *path, int *error) {
  static struct enter_filter filter;
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    *error = errno;
    return NULL;
  }
  struct stat st;
  *error = EINVAL;
  /* A whole number of 8-byte instructions, 1 to BPF_MAXINSNS, in a regular file. */
  if (fstat(fd, &st) != 0) {
    *error = errno;
  } else if (S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size % sizeof(struct sock_filter) == 0 &&
             st.st_size <= (off_t)sizeof(filter.instructions)) {
    size_t want = (size_t)st.st_size, got = 0;
    while (got < want) {
      ssize_t n = read(fd, (char *)filter.instructions + got, want - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += (size_t)n;
    }
    *error = got == want ? 0 : EIO;
    filter.length = (unsigned short)(want / sizeof(struct sock_filter));
  }
  close(fd);
  return *error == 0 ? &filter : NULL;
}

/* keyctl refused outright: a filter's EPERM, a kernel without keys' ENOSYS, gVisor's EACCES (2022). */
static int refused_outright(int error) {
  return error == EPERM || error == ENOSYS || error == EACCES;
}

/*
 * True when keyctl is refused outright here (an outer seccomp filter, such as systemd-nspawn's for
 * its payload, a kernel without keys, or gVisor's kernel, which has no keyrings to reach): then
 * nothing from here down reaches any keyring, since filters are inherited, and there is no session
 * keyring to leave. Joining a new anonymous keyring never fails so otherwise.
 */
static int keyrings_closed(int join_error) {
  if (!refused_outright(join_error)) return 0;
  return syscall(SYS_keyctl, FORAGE_KEYCTL_GET_KEYRING_ID, FORAGE_KEY_SPEC_SESSION_KEYRING, 0) < 0 && refused_outright(errno);
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

int enter_fresh_session(const char *audit_id) {
  if (syscall(SYS_keyctl, FORAGE_KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0) {
    int error = errno;
    if (!keyrings_closed(error)) return enter_fail("joining a new session keyring", error);
  }
  if (audit_id != NULL) tag_audit_id(audit_id);
  return 0;
}

int enter_confine(const struct enter_filter *filter) {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return enter_fail("setting no_new_privs", errno);
  struct sock_fprog program = {.len = filter->length, .filter = (struct sock_filter *)filter->instructions};
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_LOG, &program) == 0) return 0;
  /* gVisor's kernel (2022) knows no flags: the same filter, its refusals only not logged. */
  if (errno != EINVAL || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0) return enter_fail("loading the seccomp filter", errno);
  return 0;
}

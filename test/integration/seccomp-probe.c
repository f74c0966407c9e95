/*
 * Attempts one thing the sandbox's seccomp filter refuses, named by argv[1], and reports
 * "ok" (exit 0) or "errno N" (exit 1), staying alive either way. For test/integration/escape-seccomp.
 *   io_uring     io_uring_setup(2 entries)
 *   userfaultfd  userfaultfd(UFFD_USER_MODE_ONLY), allowed unprivileged since Linux 5.11
 *   clone-userns clone(CLONE_NEWUSER | SIGCHLD), the child exits at once
 *   int80        getpid through the i386 entry point (int 0x80, eax = 20)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int report(long result) {
  if (result >= 0) return printf("ok\n"), 0;
  return printf("errno %d\n", errno), 1;
}

static int child(void *unused) {
  (void)unused;
  return 0;
}

static long int80_getpid(void) {
  long result = 20;
  __asm__ volatile("int $0x80" : "+a"(result) : : "memory");
  if (result < 0) errno = (int)-result;
  return result < 0 ? -1 : result;
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  if (strcmp(argv[1], "io_uring") == 0) {
    struct io_uring_params params;
    memset(&params, 0, sizeof params);
    return report(syscall(SYS_io_uring_setup, 2, &params));
  }
  if (strcmp(argv[1], "userfaultfd") == 0) return report(syscall(SYS_userfaultfd, O_CLOEXEC | 1));
  if (strcmp(argv[1], "clone-userns") == 0) {
    static char stack[64 * 1024];
    long pid = clone(child, stack + sizeof stack, CLONE_NEWUSER | SIGCHLD, NULL);
    if (pid > 0) waitpid((pid_t)pid, NULL, 0);
    return report(pid);
  }
  if (strcmp(argv[1], "int80") == 0) return report(int80_getpid());
  return 2;
}

/*
 * Attempts one thing the sandbox's seccomp filter refuses, named by argv[1], and reports
 * "ok" (exit 0) or "errno N" (exit 1), staying alive either way. For test/integration/escape-seccomp.
 *   io_uring     io_uring_setup(2 entries)
 *   userfaultfd  userfaultfd(UFFD_USER_MODE_ONLY), allowed unprivileged since Linux 5.11
 *   clone-userns clone(CLONE_NEWUSER | SIGCHLD), the child exits at once
 *   int80        getpid through the i386 entry point (int 0x80, eax = 20)
 *   btrfs-subvol DIR NAME  ioctl(BTRFS_IOC_SUBVOL_CREATE) making subvolume NAME in DIR
 *                (for test/integration/escape-disk: a subvolume escapes the workspace's quota)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/btrfs.h>
#include <linux/io_uring.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
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

static long btrfs_subvolume(const char *dir, const char *name) {
  struct btrfs_ioctl_vol_args args;
  memset(&args, 0, sizeof args);
  strncpy(args.name, name, BTRFS_PATH_NAME_MAX);
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -1;
  long result = ioctl(fd, BTRFS_IOC_SUBVOL_CREATE, &args);
  int saved = errno;
  close(fd);
  errno = saved;
  return result;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "btrfs-subvol") == 0) return report(btrfs_subvolume(argv[2], argv[3]));
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

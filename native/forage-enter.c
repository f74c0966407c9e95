/*
 * forage-enter: every process entering a Forage sandbox passes through it. Three ways in:
 *
 *   forage-enter [--audit-id=N] FILTER COMMAND [ARG...]
 *     Inside the sandbox's namespaces and root already (the host-root container's payload, run
 *     by systemd-nspawn): a fresh anonymous session keyring (nothing keeps the caller's), the
 *     audit id as loginuid (the kernel's records of refusals carry it as `auid`, so they can be
 *     counted per sandbox; only root may, so best effort), no_new_privs, the seccomp program
 *     FILTER (classic BPF written by forage-ctl's compiler, loaded with SECCOMP_FILTER_FLAG_LOG where
 *     the kernel has it; gVisor's has not),
 *     then COMMAND (an absolute path: no PATH search).
 *
 *   forage-enter --join=PID [--cgroup=FILE]... [--user=UID:GID | --keep-caps=CAP,...]
 *                [--cwd=DIR] [--env=K=V]... [--audit-id=N] [--terminal=ROWS:COLS] [--nproc=N] FILTER COMMAND [ARG...]
 *     From the host, as root (exec, attach, init commands, sshd): joins the cgroups and the
 *     namespaces of the sandbox's PID 1, starts a new session, drops to the agent (or keeps root
 *     with only the named capabilities), then the same keyring, audit id, filter and exec;
 *     COMMAND is searched on the PATH of the new environment. With --terminal the command runs on
 *     a pseudo-terminal made inside the sandbox, relayed over stdin and stdout (terminal.c). See
 *     join.c.
 *
 *   forage-enter --inside [--user=UID:GID | --keep-caps=CAP,...] [--cwd=DIR] [--env=K=V]...
 *                [--terminal=ROWS:COLS] [--nproc=N] FILTER COMMAND [ARG...]
 *     The same, for a runtime that put this process inside itself (gVisor's `runsc exec`, as
 *     root in the sandbox, FILTER a path inside): nothing is joined, the rest is as with --join.
 *
 * Every way, every descriptor but 0, 1 and 2 is closed first, and what runs inside never has
 * the caller's controlling terminal.
 *
 * Any failure stops with exit status 126 and nothing is run: entering without the filter is never
 * an option. Built statically so it runs in any root (the host's /usr or a NixOS system).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "enter.h"
#include "join.h"
#include "terminal.h"

static int usage(const char *problem) {
  fprintf(stderr,
          "forage-enter: %s\n"
          "usage: forage-enter [--audit-id=N] FILTER /ABSOLUTE/COMMAND [ARG...]\n"
          "       forage-enter --join=PID [--cgroup=FILE]... [--user=UID:GID | --keep-caps=CAP,...] [--cwd=DIR] [--env=K=V]... [--audit-id=N] [--terminal=ROWS:COLS] [--nproc=N] FILTER COMMAND [ARG...]\n"
          "       forage-enter --inside [--user=UID:GID | --keep-caps=CAP,...] [--cwd=DIR] [--env=K=V]... [--terminal=ROWS:COLS] [--nproc=N] FILTER COMMAND [ARG...]\n",
          problem);
  return FORAGE_FAILED;
}

/* A whole decimal number in 1..max, or -1. */
static long number(const char *text, long max) {
  if (text[0] == '\0' || strspn(text, "0123456789") != strlen(text) || strlen(text) > 10) return -1;
  long value = strtol(text, NULL, 10);
  return value >= 1 && value <= max ? value : -1;
}

/*
 * Nothing but stdin, stdout and stderr goes in: a descriptor the caller happened to hold (a pipe
 * the daemon inherited, a log, a socket) would reach every process of every sandbox entered.
 */
static int close_inherited(void) {
  if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0) return 0;
  /* ENOSYS: a kernel before 5.9; EINVAL for these valid arguments: gVisor's (2022) has no close_range. */
  if (errno != ENOSYS && errno != EINVAL) return enter_fail("closing inherited descriptors", errno);
  /*
   * The open ones, as /proc lists them: a loop up to RLIMIT_NOFILE is a million system calls
   * where that limit is high, and under gVisor's ptrace platform each costs microseconds.
   */
  DIR *open_fds = opendir("/proc/self/fd");
  if (open_fds != NULL) {
    int listing = dirfd(open_fds), fds[4096], count = 0;
    for (struct dirent *entry; (entry = readdir(open_fds)) != NULL && count < 4096;) {
      long fd = entry->d_name[0] >= '0' && entry->d_name[0] <= '9' ? strtol(entry->d_name, NULL, 10) : -1;
      if (fd >= 3 && fd != listing) fds[count++] = (int)fd;
    }
    closedir(open_fds);
    if (count < 4096) {
      for (int i = 0; i < count; i++) close(fds[i]);
      return 0;
    }
  }
  struct rlimit limit;
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return enter_fail("closing inherited descriptors", errno);
  for (rlim_t fd = 3; fd < limit.rlim_cur && fd < 1048576; fd++) close((int)fd);
  return 0;
}

/* Inside already: a session of its own (unless it leads one), keyring, audit id, filter, exec. */
static int enter_inside(const char *audit_id, char **argv) {
  if (argv[0] == NULL || argv[1] == NULL || argv[1][0] != '/') return usage("needs FILTER and an absolute COMMAND");
  if (getsid(0) != getpid() && setsid() < 0) return enter_fail("starting a new session", errno);
  int error = 0;
  const struct enter_filter *filter = enter_read_filter(argv[0], &error);
  if (filter == NULL) return enter_fail(argv[0], error);
  int failed = enter_fresh_session(audit_id);
  if (failed == 0) failed = enter_confine(filter);
  if (failed != 0) return failed;
  execv(argv[1], &argv[1]);
  return enter_fail(argv[1], errno);
}

static int parse_user(const char *text, struct join_user *user) {
  char uid[16], *colon = strchr(text, ':');
  if (colon == NULL || (size_t)(colon - text) >= sizeof(uid)) return -1;
  memcpy(uid, text, (size_t)(colon - text));
  uid[colon - text] = '\0';
  long u = number(uid, 0x7fffffff), g = colon[1] == '0' && colon[2] == '\0' ? 0 : number(colon + 1, 0x7fffffff);
  if (u < 1 || g < 0) return -1; /* never uid 0: --user is the agent */
  user->uid = (uid_t)u;
  user->gid = (gid_t)g;
  return 0;
}

static int valid_caps(const char *list) {
  for (const char *at = list; *at != '\0';) {
    size_t length = strcspn(at, ",");
    if (length == 0 || !join_known_capability(at, length)) return 0;
    at += length + (at[length] == ',');
  }
  return list[0] != '\0';
}

/* One --name=value option of the join way in; returns 0, or the usage failure. */
static int join_option(char *arg, struct join_request *request, struct join_user *user) {
  char *value = strchr(arg, '=') + 1;
  if (strncmp(arg, "--join=", 7) == 0 && (request->leader = (int)number(value, 0x3fffffff)) > 0) return 0;
  if (strncmp(arg, "--cgroup=", 9) == 0 && value[0] == '/' && request->cgroup_count < JOIN_MAX_LIST) return (request->cgroups[request->cgroup_count++] = value), 0;
  if (strncmp(arg, "--user=", 7) == 0 && parse_user(value, user) == 0) return (request->user = user), 0;
  if (strncmp(arg, "--keep-caps=", 12) == 0 && valid_caps(value)) return (request->keep_caps = value), 0;
  if (strncmp(arg, "--cwd=", 6) == 0 && value[0] == '/') return (request->cwd = value), 0;
  if (strncmp(arg, "--env=", 6) == 0 && strchr(value, '=') > value && request->env_count < JOIN_MAX_LIST) return (request->env[request->env_count++] = value), 0;
  if (strncmp(arg, "--audit-id=", 11) == 0 && number(value, 0xfffffffe) > 0) return (request->audit_id = value), 0;
  if (strncmp(arg, "--nproc=", 8) == 0 && (request->nproc = number(value, 0x3fffffff)) > 0) return 0;
  static struct terminal_size size;
  if (strncmp(arg, "--terminal=", 11) == 0 && terminal_parse_size(value, &size) == 0) return (request->terminal = &size), 0;
  return usage(arg);
}

/* The end of the argv and environment strings, which the kernel lays out one after the other. */
static char *strings_end(int argc, char **argv) {
  char *end = argv[argc - 1] + strlen(argv[argc - 1]) + 1;
  for (char **variable = environ; variable != NULL && *variable != NULL; variable++)
    if (*variable == end) end += strlen(*variable) + 1;
  return end;
}

int main(int argc, char **argv) {
  if (close_inherited() != 0) return FORAGE_FAILED;
  int inside = argc > 1 && strcmp(argv[1], "--inside") == 0;
  if (inside || (argc > 1 && strncmp(argv[1], "--join=", 7) == 0)) {
    static struct join_request request = {.cwd = "/"};
    static struct join_user user;
    int i = inside ? 2 : 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0 && strchr(argv[i], '=') != NULL; i++) {
      if (join_option(argv[i], &request, &user) != 0) return FORAGE_FAILED;
    }
    if (request.user != NULL && request.keep_caps != NULL) return usage("--keep-caps is for root, not with --user");
    if (inside && (request.leader != 0 || request.cgroup_count != 0)) return usage("--inside joins nothing: no --join or --cgroup");
    if (i + 1 >= argc) return usage("needs FILTER and COMMAND");
    request.filter = argv[i];
    request.command = &argv[i + 1];
    request.strings_start = argv[0];
    request.strings_end = strings_end(argc, argv);
    return join_sandbox(&request);
  }
  const char *audit_id = NULL;
  int first = 1;
  if (argc > 1 && strncmp(argv[1], "--audit-id=", 11) == 0) audit_id = argv[first++] + 11;
  return enter_inside(audit_id, &argv[first]);
}

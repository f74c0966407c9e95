/* forage-enter's way in from the host: see join.c. */
#ifndef FORAGE_JOIN_H
#define FORAGE_JOIN_H

#include <stddef.h>
#include <sys/types.h>

#define JOIN_MAX_LIST 64

struct terminal_size;

struct join_user {
  uid_t uid;
  gid_t gid;
};

/* What `forage-enter --join=PID …` was asked to do (see forage-enter.c's usage). */
struct join_request {
  /* The sandbox's PID 1, whose cgroups and namespaces are joined; 0 with --inside: inside already. */
  int leader;
  const char *cgroups[JOIN_MAX_LIST];
  int cgroup_count;
  /* NULL: stay root. */
  const struct join_user *user;
  /* Root only: the capabilities kept, comma-separated; NULL: all of them. */
  const char *keep_caps;
  const char *cwd;
  char *env[JOIN_MAX_LIST];
  int env_count;
  const char *audit_id;
  /* > 0: the command's RLIMIT_NPROC, soft and hard (--nproc=N); 0: left as it is. */
  long nproc;
  /* Where this process's argv and environment strings lie (the relay blanks them: see join.c). */
  char *strings_start, *strings_end;
  /* Non-NULL: the command runs on a new pseudo-terminal of this size (see terminal.c). */
  const struct terminal_size *terminal;
  /* The sandbox's seccomp program, a host path (inside: a path in the sandbox). */
  const char *filter;
  char **command;
};

/* True when `name` (of `length` bytes) is a capability --keep-caps may name. */
int join_known_capability(const char *name, size_t length);

/* Runs the request; returns the exit status to exit with (the command's, or a failure's). */
int join_sandbox(const struct join_request *request);

#endif

/*
 * Shared by forage-enter's two ways in (see forage-enter.c): what every process entering a
 * sandbox goes through last, and how failures are reported.
 */
#ifndef FORAGE_ENTER_H
#define FORAGE_ENTER_H

/* Exit status when forage-enter itself fails: nothing was run (as env(1) and nsenter(1) do). */
#define FORAGE_FAILED 126

/* Prints "forage-enter: WHAT: strerror(error)" and returns FORAGE_FAILED. */
int enter_fail(const char *what, int error);

/* Reads the classic-BPF program at `path` (opened before anything else changes). */
struct enter_filter;
struct enter_filter *enter_read_filter(const char *path, int *error);

/*
 * Joins a fresh anonymous session keyring and, with an audit id (digits), makes it this process's
 * loginuid. Run while still root: both need privileges the later steps give up.
 */
int enter_fresh_session(const char *audit_id);

/* Sets no_new_privs and loads the filter (with SECCOMP_FILTER_FLAG_LOG where the kernel has it); the last step before exec. */
int enter_confine(const struct enter_filter *filter);

#endif

/* forage-enter's terminal: a pseudo-terminal made inside the sandbox for one command, relayed. */
#ifndef FORAGE_TERMINAL_H
#define FORAGE_TERMINAL_H

#include <sys/types.h>

/* The frames forage-ctl writes on the relay's stdin (see terminal.c). */
#define TERMINAL_FRAME_DATA 'd'
#define TERMINAL_FRAME_SIZE 'w'

struct terminal_size {
  unsigned short rows, cols;
};

/* Parses "ROWS:COLS" (each 1..1000); returns 0, or -1 when it is anything else. */
int terminal_parse_size(const char *text, struct terminal_size *size);

/*
 * Opens a new pseudo-terminal on the sandbox's own devpts (the caller has entered its mount
 * namespace and root), of `size`, its far end owned by uid:gid (-1: left to root). Returns the
 * near end (master) and sets *peer to the far end, or returns -1 with errno set.
 */
int terminal_open(const struct terminal_size *size, uid_t uid, gid_t gid, int *peer);

/*
 * Makes `peer` this process's controlling terminal and its stdin, stdout and stderr, in a new
 * session (the process must not lead one yet). Returns 0, or -1 with errno set.
 */
int terminal_take(int peer);

/*
 * Relays between forage-ctl (framed keystrokes and sizes on stdin, the terminal's output on
 * stdout) and `master` until `command` (the process on the terminal) exits or stdin ends (a hang-up:
 * the terminal is closed, which sends the session SIGHUP). Returns the exit status to exit with:
 * the command's, or 128+N when a signal N ended it.
 */
int terminal_relay(int master, pid_t command);

#endif

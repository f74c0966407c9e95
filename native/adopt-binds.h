#ifndef FORAGE_ADOPT_BINDS_H
#define FORAGE_ADOPT_BINDS_H
/* forage-mounts adopt PID HOSTNAME {ro|rw|ro-inside|rw-inside SOURCE TARGET}...: see adopt-binds.c. */
int adopt_binds(const char *pid_text, const char *hostname, int count, char **triples);
#endif

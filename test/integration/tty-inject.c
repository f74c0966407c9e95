/*
 * The attack of test/integration/escape-terminal: pushes argv[1] and a newline into the input of
 * the terminal it can reach — its stdin when that is a terminal, else /dev/tty (its controlling
 * terminal) — with ioctl(TIOCSTI), as if typed there; the shell reading that terminal runs it
 * once the foreground command ends. With argv[2] "linux" it tries TIOCLINUX instead.
 * Prints "pushed" (exit 0), or "refused: WHERE: REASON" (exit 1).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int refused(const char *where, int error) {
  printf("refused: %s: %s\n", where, strerror(error));
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2) return refused("usage", EINVAL);
  const char *where = isatty(0) ? "stdin" : "/dev/tty";
  int fd = isatty(0) ? 0 : open("/dev/tty", O_RDWR | O_NOCTTY);
  if (fd < 0) return refused(where, errno);
  if (argc > 2 && strcmp(argv[2], "linux") == 0) {
    /* TIOCLINUX subcode 6: read the shift state; harmless, but refused as the whole request is. */
    char subcode = 6;
    if (ioctl(fd, TIOCLINUX, &subcode) != 0) return refused(where, errno);
    printf("pushed\n");
    return 0;
  }
  for (const char *c = argv[1]; *c != '\0'; c++)
    if (ioctl(fd, TIOCSTI, c) != 0) return refused(where, errno);
  char newline = '\n';
  if (ioctl(fd, TIOCSTI, &newline) != 0) return refused(where, errno);
  printf("pushed\n");
  return 0;
}

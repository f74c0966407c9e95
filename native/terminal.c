/*
 * A terminal for one command run in a sandbox (`forage-enter --join=PID|--inside --terminal=ROWS:COLS`):
 * a pseudo-terminal opened on the sandbox's own devpts, never a terminal of the host. The command
 * gets its far end as controlling terminal in a session of its own; this process keeps the near
 * end and relays it to forage-ctl over plain pipes, so nothing inside ever holds a descriptor of
 * the host's terminal (it could push input into it with TIOCSTI, or be one hang-up away from it).
 *
 * forage-ctl writes frames on stdin: a type byte, a big-endian 16-bit length, the payload:
 *   'd' LEN BYTES      keystrokes for the terminal
 *   'w' 4 ROWS COLS    a new window size (16-bit big-endian each; the command gets SIGWINCH)
 * Everything the terminal prints comes out on stdout as is. The end of stdin is a hang-up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "terminal.h"

#ifndef TIOCGPTPEER
#define TIOCGPTPEER _IO('T', 0x41)
#endif

#define FRAME_HEADER 3
#define FRAME_MAX 65535

/* One dimension: 1 to 4 digits, 1..1000. */
static int dimension(const char *text, size_t length, unsigned short *value) {
  if (length == 0 || length > 4 || strspn(text, "0123456789") < length) return -1;
  unsigned parsed = 0;
  for (size_t i = 0; i < length; i++) parsed = parsed * 10 + (unsigned)(text[i] - '0');
  if (parsed < 1 || parsed > 1000) return -1;
  *value = (unsigned short)parsed;
  return 0;
}

int terminal_parse_size(const char *text, struct terminal_size *size) {
  const char *colon = strchr(text, ':');
  if (colon == NULL) return -1;
  if (dimension(text, (size_t)(colon - text), &size->rows) != 0) return -1;
  return dimension(colon + 1, strlen(colon + 1), &size->cols);
}

static int set_size(int master, unsigned short rows, unsigned short cols) {
  struct winsize window = {.ws_row = rows, .ws_col = cols};
  return ioctl(master, TIOCSWINSZ, &window);
}

/*
 * The far end of `master` opened as /dev/pts/N, and checked to be it: a character device of the
 * pty slaves' majors (136-143, Documentation/admin-guide/devices.txt) with N's number.
 */
static int open_by_number(int master) {
  unsigned int number = 0;
  char path[32];
  struct stat opened;
  if (ioctl(master, TIOCGPTN, &number) != 0) return -1;
  snprintf(path, sizeof(path), "/dev/pts/%u", number);
  int far = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW);
  if (far < 0) return -1;
  unsigned int device = 0;
  if (fstat(far, &opened) != 0 || !S_ISCHR(opened.st_mode) || (device = major(opened.st_rdev)) < 136 || device > 143 ||
      (device - 136) * 256 + minor(opened.st_rdev) != number) {
    close(far);
    errno = ENOTTY;
    return -1;
  }
  return far;
}

int terminal_open(const struct terminal_size *size, uid_t uid, gid_t gid, int *peer) {
  int master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0) return -1;
  int unlock = 0, far = -1;
  if (ioctl(master, TIOCSPTLCK, &unlock) != 0 || set_size(master, size->rows, size->cols) != 0) goto failed;
  /* The far end through the near one: no path under /dev/pts is looked up. */
  far = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
  /*
   * gVisor's kernel (2022) has no TIOCGPTPEER: the far end by its number in the sandbox's own
   * devpts, where names are the kernel's to give (nothing inside can put another file there).
   */
  if (far < 0 && (errno == ENOTTY || errno == EINVAL)) far = open_by_number(master);
  if (far < 0) goto failed;
  /* The agent's own terminal, as login(1) would make it: tty(1), ssh and tmux find it theirs. */
  if (uid != (uid_t)-1 && (fchown(far, uid, gid) != 0 || fchmod(far, 0600) != 0)) goto failed;
  *peer = far;
  return master;
failed:;
  int error = errno;
  if (far >= 0) close(far);
  close(master);
  errno = error;
  return -1;
}

int terminal_take(int peer) {
  if (setsid() < 0 || ioctl(peer, TIOCSCTTY, 0) != 0) return -1;
  for (int fd = 0; fd < 3; fd++)
    if (dup2(peer, fd) < 0) return -1;
  if (peer > 2) close(peer);
  return 0;
}

/* SIGCHLD wakes the relay's poll through this pipe; an ending signal goes on to the command. */
static int wake[2] = {-1, -1};
static volatile pid_t relayed_command;

static void on_child(int signal_number) {
  (void)signal_number;
  int saved = errno;
  if (write(wake[1], "c", 1) < 0) errno = saved;
  errno = saved;
}

static void on_ending(int signal_number) {
  if (relayed_command > 0) kill(-relayed_command, signal_number);
}

static int prepare_signals(pid_t command) {
  relayed_command = command;
  if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
  struct sigaction child = {.sa_handler = on_child, .sa_flags = SA_NOCLDSTOP}, ending = {.sa_handler = on_ending}, ignore = {.sa_handler = SIG_IGN};
  sigaction(SIGCHLD, &child, NULL);
  int endings[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM};
  for (size_t i = 0; i < sizeof endings / sizeof endings[0]; i++) sigaction(endings[i], &ending, NULL);
  /* forage-ctl gone: a failed write says so, instead of a signal that ends the relay unseen. */
  sigaction(SIGPIPE, &ignore, NULL);
  return 0;
}

static int write_all(int fd, const unsigned char *data, size_t length) {
  while (length > 0) {
    ssize_t n = write(fd, data, length);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    data += n;
    length -= (size_t)n;
  }
  return 0;
}

struct relay {
  int master;
  /* Bytes read from stdin not yet taken apart into frames. */
  unsigned char framed[2 * (FRAME_HEADER + FRAME_MAX)];
  size_t framed_length;
  /* Keystrokes waiting for the terminal to take them (it may be full: the command is not reading). */
  unsigned char keys[2 * FRAME_MAX];
  size_t keys_length;
  int input_open;
};

/* Takes every whole frame it can; returns -1 on a malformed one (treated as a hang-up). */
static int take_frames(struct relay *relay) {
  size_t at = 0;
  while (relay->framed_length - at >= FRAME_HEADER) {
    const unsigned char *frame = relay->framed + at;
    size_t length = (size_t)frame[1] << 8 | frame[2];
    if (relay->framed_length - at < FRAME_HEADER + length) break;
    if (frame[0] == TERMINAL_FRAME_DATA) {
      if (sizeof relay->keys - relay->keys_length < length) break;
      memcpy(relay->keys + relay->keys_length, frame + FRAME_HEADER, length);
      relay->keys_length += length;
    } else if (frame[0] == TERMINAL_FRAME_SIZE && length == 4) {
      unsigned rows = (unsigned)frame[3] << 8 | frame[4], cols = (unsigned)frame[5] << 8 | frame[6];
      if (rows >= 1 && rows <= 1000 && cols >= 1 && cols <= 1000) set_size(relay->master, (unsigned short)rows, (unsigned short)cols);
    } else {
      return -1;
    }
    at += FRAME_HEADER + length;
  }
  memmove(relay->framed, relay->framed + at, relay->framed_length - at);
  relay->framed_length -= at;
  return 0;
}

/* Copies what the terminal printed to stdout; -1 when the terminal or stdout is gone. */
static int relay_output(int master) {
  unsigned char buffer[65536];
  ssize_t n = read(master, buffer, sizeof buffer);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return 0;
  if (n <= 0) return -1;
  return write_all(STDOUT_FILENO, buffer, (size_t)n);
}

static void relay_input(struct relay *relay) {
  ssize_t n = read(STDIN_FILENO, relay->framed + relay->framed_length, sizeof relay->framed - relay->framed_length);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {
    relay->input_open = 0;
    return;
  }
  relay->framed_length += (size_t)n;
  if (take_frames(relay) != 0) relay->input_open = 0;
}

static void relay_keys(struct relay *relay) {
  ssize_t n = write(relay->master, relay->keys, relay->keys_length);
  if (n <= 0) return;
  memmove(relay->keys, relay->keys + n, relay->keys_length - (size_t)n);
  relay->keys_length -= (size_t)n;
  /* Room again: frames read earlier and held back for want of it go on now. */
  if (relay->input_open && take_frames(relay) != 0) relay->input_open = 0;
}

/* One round of the relay while the command runs: 1 once the terminal says no more, -1 on a failure. */
static int relay_round(struct relay *relay, int reading) {
  struct pollfd fds[3] = {
      {.fd = wake[0], .events = POLLIN},
      {.fd = relay->input_open && relay->framed_length < sizeof relay->framed ? STDIN_FILENO : -1, .events = POLLIN},
      {.fd = reading ? relay->master : -1, .events = (short)(POLLIN | (relay->keys_length > 0 ? POLLOUT : 0))},
  };
  if (poll(fds, 3, -1) < 0) return errno == EINTR ? 0 : -1;
  if (fds[0].revents & POLLIN) {
    char drained[64];
    while (read(wake[0], drained, sizeof drained) > 0) continue;
  }
  if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) relay_input(relay);
  if (fds[2].revents & POLLOUT) relay_keys(relay);
  if (fds[2].revents & (POLLIN | POLLHUP | POLLERR) && relay_output(relay->master) != 0) return 1;
  return 0;
}

int terminal_relay(int master, pid_t command) {
  static struct relay relay;
  relay.master = master;
  relay.input_open = 1;
  int status = 0;
  if (prepare_signals(command) != 0 || fcntl(master, F_SETFL, O_NONBLOCK) != 0) {
    kill(-command, SIGKILL);
    waitpid(command, &status, 0);
    return 126;
  }
  /* reading: the near end is open and still says something. */
  int reading = 1;
  for (;;) {
    pid_t done = waitpid(command, &status, WNOHANG);
    if (done == command) break;
    if (done < 0 && errno != EINTR) return 126;
    int round = relay_round(&relay, reading);
    if (round < 0) {
      kill(-command, SIGKILL);
      waitpid(command, &status, 0);
      return 126;
    }
    if (round > 0) reading = 0;
    /* A hang-up: closing the near end sends the command's session SIGHUP, as a closed terminal does. */
    if (!relay.input_open && master >= 0) {
      close(master);
      master = relay.master = -1;
      reading = 0;
    }
  }
  /* What the command printed last, before it exited, still goes out. */
  while (reading && relay_output(master) == 0) {
    struct pollfd more = {.fd = master, .events = POLLIN};
    if (poll(&more, 1, 0) <= 0) break;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 126;
}

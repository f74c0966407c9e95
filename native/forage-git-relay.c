/*
 * forage-git-relay: the two ends of the push gate (runtime/push-gate/) that git itself runs.
 *
 * In a sandbox, as git's ext:: transport (the sandbox's git config rewrites a remote's push URL to
 * "ext::/run/forage-push/forage-git-relay %S REMOTE /run/forage-push/gate.sock"):
 *   forage-git-relay SERVICE REMOTE SOCKET
 * connects to the gate's socket, sends "SERVICE REMOTE\n" and then relays stdin to the socket and
 * the socket to stdout. The gate on the host runs git-receive-pack; nothing is decided here.
 *
 * On the host, as the outbox's pre-receive hook (a link named "pre-receive" to this program):
 * reads the ref updates from stdin (at most FORAGE_HOOK_INPUT_LIMIT bytes), writes
 * "GIT_QUARANTINE_PATH\n", them and a NUL to fd 3 (the gate's control channel, which
 * git-receive-pack passes on to its hooks), then copies the gate's answer to stderr (git shows it to the pusher as
 * "remote:" lines) after its first byte, which is the verdict: '0' accepts, anything else refuses.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define FORAGE_HOOK_INPUT_LIMIT (1u << 20)

static int write_all(int fd, const char *data, size_t size) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    data += n;
    size -= (size_t)n;
  }
  return 0;
}

/* Copies from one descriptor to another; 1 at end of input, 0 when something was copied, -1 on error. */
static int pump(int from, int to) {
  char buffer[65536];
  ssize_t n = read(from, buffer, sizeof buffer);
  if (n < 0) return errno == EINTR ? 0 : -1;
  if (n == 0) return 1;
  return write_all(to, buffer, (size_t)n) == 0 ? 0 : -1;
}

static int relay(const char *service, const char *remote, const char *path) {
  struct sockaddr_un address = {.sun_family = AF_UNIX};
  if (strlen(path) >= sizeof address.sun_path) return fprintf(stderr, "forage-git-relay: socket path too long\n"), 2;
  strcpy(address.sun_path, path);
  int gate = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (gate < 0 || connect(gate, (struct sockaddr *)&address, sizeof address) != 0) {
    fprintf(stderr, "forage-git-relay: the push gate at %s does not answer: %s\n", path, strerror(errno));
    return 2;
  }
  if (write_all(gate, service, strlen(service)) != 0 || write_all(gate, " ", 1) != 0 || write_all(gate, remote, strlen(remote)) != 0 || write_all(gate, "\n", 1) != 0) return 2;
  struct pollfd fds[2] = {{.fd = 0, .events = POLLIN}, {.fd = gate, .events = POLLIN}};
  for (;;) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return 2;
    }
    if (fds[0].revents != 0) {
      int done = pump(0, gate);
      if (done != 0) fds[0].fd = -1, shutdown(gate, SHUT_WR);
    }
    if (fds[1].revents != 0) {
      int done = pump(gate, 1);
      if (done != 0) return done < 0 ? 2 : 0;
    }
  }
}

static int hook(void) {
  const char *quarantine = getenv("GIT_QUARANTINE_PATH");
  char *input = malloc(FORAGE_HOOK_INPUT_LIMIT);
  size_t size = 0;
  ssize_t n;
  if (input == NULL) return 1;
  while ((n = read(0, input + size, FORAGE_HOOK_INPUT_LIMIT - size)) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || (size += (size_t)n) == FORAGE_HOOK_INPUT_LIMIT) return fprintf(stderr, "error: forage push gate: too many ref updates in one push\n"), 1;
  }
  if (quarantine == NULL) quarantine = "";
  if (write_all(3, quarantine, strlen(quarantine)) != 0 || write_all(3, "\n", 1) != 0 || write_all(3, input, size) != 0) {
    return fprintf(stderr, "error: forage push gate: the gate is not listening\n"), 1;
  }
  /* A NUL ends the report: the gate's end of fd 3 would close itself on a half-close. */
  if (write_all(3, "", 1) != 0) return fprintf(stderr, "error: forage push gate: the gate is not listening\n"), 1;
  char verdict = '1';
  while ((n = read(3, &verdict, 1)) < 0 && errno == EINTR) {
  }
  if (n != 1) return fprintf(stderr, "error: forage push gate: no answer from the gate\n"), 1;
  int done;
  while ((done = pump(3, 2)) == 0) {
  }
  return verdict == '0' ? 0 : 1;
}

int main(int argc, char **argv) {
  const char *name = strrchr(argv[0], '/');
  name = name == NULL ? argv[0] : name + 1;
  if (strcmp(name, "pre-receive") == 0) return hook();
  if (argc != 4) return fprintf(stderr, "usage: forage-git-relay SERVICE REMOTE SOCKET\n"), 64;
  return relay(argv[1], argv[2], argv[3]);
}

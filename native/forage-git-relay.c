/*
 * forage-git-relay: the two ends of the push gate (runtime/push-gate/) that git itself runs.
 *
 * In a sandbox, as git's ext:: transport (the sandbox's git config rewrites a remote's push URL to
 * "ext::/run/forage-git-relay %S REMOTE /run/forage-push/gate.sock"):
 *   forage-git-relay SERVICE REMOTE SOCKET
 * connects to the gate's socket, sends "SERVICE REMOTE\n" and then relays stdin to the socket and
 * the socket to stdout. The gate on the host runs git-receive-pack; nothing is decided here.
 *
 * On the host, as the outbox's hooks (links named "pre-receive" and "update" to this program),
 * each sends one message to the gate on fd 3 (its control channel, which git-receive-pack passes
 * on to its hooks) and waits for its answer. Several hooks of one push share the channel, so both
 * directions are framed: every message and every answer ends with a NUL.
 *   pre-receive: "pre-receive\n" GIT_QUARANTINE_PATH "\n" then the ref updates git wrote to stdin
 *                (at most FORAGE_MESSAGE_LIMIT bytes in all); the gate checks them all, asks nothing.
 *   update REF OLD NEW: "update\n" "OLD NEW REF\n"; the gate asks for that one ref and pushes it.
 * The answer's first byte is the verdict ('0' accepts, anything else refuses); the rest, up to the
 * NUL, is copied to stderr, which git shows to the pusher as "remote:" lines.
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

/* The gate takes at most 64 KiB; refusing here first gives the pusher a clear message. */
#define FORAGE_MESSAGE_LIMIT (60u * 1024u)
#define FORAGE_ANSWER_LIMIT (64u * 1024u)

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

static int refuse(const char *why) {
  fprintf(stderr, "error: forage push gate: %s\n", why);
  return 1;
}

/* Sends one message and a NUL to the gate, relays its answer to stderr; the hook's exit status. */
static int exchange(const char *message, size_t size) {
  /* A NUL inside would end the message early: what followed would be read as the next one. */
  if (memchr(message, 0, size) != NULL) return refuse("a NUL in what git handed the hook");
  if (write_all(3, message, size) != 0 || write_all(3, "", 1) != 0) return refuse("the gate is not listening");
  char chunk[4096], verdict = '1';
  size_t seen = 0;
  for (;;) {
    ssize_t n = read(3, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return refuse("no whole answer from the gate");
    char *end = memchr(chunk, 0, (size_t)n);
    size_t text = end == NULL ? (size_t)n : (size_t)(end - chunk), skip = 0;
    if (seen == 0 && text == 0) return refuse("an empty answer from the gate");
    if (seen == 0) verdict = chunk[0], skip = 1;
    if ((seen += text) > FORAGE_ANSWER_LIMIT) return refuse("the gate's answer is too long");
    if (text > skip && write_all(2, chunk + skip, text - skip) != 0) return 1;
    if (end != NULL) return verdict == '0' ? 0 : 1;
  }
}

static int pre_receive(void) {
  const char *quarantine = getenv("GIT_QUARANTINE_PATH");
  if (quarantine == NULL) quarantine = "";
  char *message = malloc(FORAGE_MESSAGE_LIMIT);
  if (message == NULL) return refuse("out of memory");
  int size = snprintf(message, FORAGE_MESSAGE_LIMIT, "pre-receive\n%s\n", quarantine);
  if (size < 0 || (size_t)size >= FORAGE_MESSAGE_LIMIT) return refuse("the quarantine's path is too long");
  size_t used = (size_t)size;
  ssize_t n;
  while ((n = read(0, message + used, FORAGE_MESSAGE_LIMIT - used)) != 0) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return refuse("could not read the ref updates");
    if ((used += (size_t)n) == FORAGE_MESSAGE_LIMIT) return refuse("too many ref updates in one push");
  }
  return exchange(message, used);
}

static int update(int argc, char **argv) {
  char message[4096];
  if (argc != 4) return refuse("the update hook takes REF OLD NEW");
  int size = snprintf(message, sizeof message, "update\n%s %s %s\n", argv[2], argv[3], argv[1]);
  if (size < 0 || (size_t)size >= sizeof message) return refuse("a ref name too long");
  return exchange(message, (size_t)size);
}

int main(int argc, char **argv) {
  const char *name = strrchr(argv[0], '/');
  name = name == NULL ? argv[0] : name + 1;
  if (strcmp(name, "pre-receive") == 0) return pre_receive();
  if (strcmp(name, "update") == 0) return update(argc, argv);
  if (argc != 4) return fprintf(stderr, "usage: forage-git-relay SERVICE REMOTE SOCKET\n"), 64;
  return relay(argv[1], argv[2], argv[3]);
}

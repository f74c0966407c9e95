/*
 * forage-set-elements [--netns PATH]
 *
 * Writes elements of nftables sets over netlink, for the network guard's admissions: a request per
 * input line, one transaction (an nf_tables batch), answered by one line, "ok" or "err ERRNO
 * MESSAGE", once the kernel committed or refused it. No nft process per write (~12 ms), no nft
 * cache fetched per write (~0.5-1 ms, more with the host's ruleset; in a sandbox's namespace, a
 * ruleset its root shapes): ~0.1 ms. --netns joins that network namespace first (a sandbox's).
 *
 * A request (written by runtime/network/set-element-request.ts, which checks every value):
 *   FAMILY TABLE OP...   where OP is one of
 *   add SET TYPE ELEMENT...      ELEMENT: FIELD[,FIELD...][/TIMEOUT_SECONDS]
 *   delete SET TYPE ELEMENT...   (as add; a timeout is ignored)
 *   flush SET
 * FAMILY is inet, ip or ip6; TYPE the set's key type, fields joined by "." (ipv4_addr,
 * ipv6_addr, inet_service), e.g. "ipv4_addr.inet_service" with ELEMENT "192.0.2.7,443/300".
 * Anything it cannot parse is answered "err 22 ..." and nothing of that line is sent.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netlink.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A nested attribute's length is 16 bits: elements go in messages of at most ~this many bytes. */
#define FORAGE_ELEMENTS_PER_MESSAGE_BYTES 60000
#define FORAGE_MAX_FIELDS 4
#define FORAGE_BUFFER_LIMIT (64u << 20)

struct batch {
  char *data;
  size_t length, capacity;
  uint32_t seq;
};

struct key_type {
  int count;
  char fields[FORAGE_MAX_FIELDS]; /* '4' ipv4_addr, '6' ipv6_addr, 'p' inet_service */
};

static int reserve(struct batch *b, size_t more) {
  if (b->length + more <= b->capacity) return 0;
  size_t capacity = b->capacity == 0 ? 65536 : b->capacity;
  while (capacity < b->length + more) capacity *= 2;
  if (capacity > FORAGE_BUFFER_LIMIT) return -E2BIG;
  char *data = realloc(b->data, capacity);
  if (data == NULL) return -ENOMEM;
  memset(data + b->capacity, 0, capacity - b->capacity);
  b->data = data;
  b->capacity = capacity;
  return 0;
}

/* Appends an attribute; returns its offset (nested ones are closed by close_nest), or -errno. */
static long put_attr(struct batch *b, uint16_t type, const void *value, size_t size) {
  if (reserve(b, NLA_HDRLEN + NLA_ALIGN(size)) != 0) return -ENOMEM;
  size_t at = b->length;
  struct nlattr *attr = (struct nlattr *)(b->data + at);
  attr->nla_type = type;
  attr->nla_len = (uint16_t)(NLA_HDRLEN + size);
  memset(b->data + at + NLA_HDRLEN, 0, NLA_ALIGN(size));
  if (size > 0) memcpy(b->data + at + NLA_HDRLEN, value, size);
  b->length += NLA_HDRLEN + NLA_ALIGN(size);
  return (long)at;
}

static void close_nest(struct batch *b, long at) { ((struct nlattr *)(b->data + at))->nla_len = (uint16_t)(b->length - (size_t)at); }

static long put_message(struct batch *b, uint16_t type, uint16_t flags, uint8_t family, uint16_t resource) {
  if (reserve(b, NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct nfgenmsg))) != 0) return -ENOMEM;
  size_t at = b->length;
  struct nlmsghdr *header = (struct nlmsghdr *)(b->data + at);
  memset(header, 0, NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct nfgenmsg)));
  header->nlmsg_type = type;
  header->nlmsg_flags = NLM_F_REQUEST | flags;
  header->nlmsg_seq = b->seq++;
  struct nfgenmsg *gen = (struct nfgenmsg *)(b->data + at + NLMSG_HDRLEN);
  gen->nfgen_family = family;
  gen->version = NFNETLINK_V0;
  gen->res_id = htons(resource);
  b->length += NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct nfgenmsg));
  return (long)at;
}

static void close_message(struct batch *b, long at) { ((struct nlmsghdr *)(b->data + at))->nlmsg_len = (uint32_t)(b->length - (size_t)at); }

static int parse_type(const char *text, struct key_type *type) {
  type->count = 0;
  for (const char *field = text; *field != '\0';) {
    size_t length = strcspn(field, ".");
    char kind = length == 9 && strncmp(field, "ipv4_addr", 9) == 0   ? '4'
                : length == 9 && strncmp(field, "ipv6_addr", 9) == 0 ? '6'
                : length == 12 && strncmp(field, "inet_service", 12) == 0 ? 'p'
                                                                      : 0;
    if (kind == 0 || type->count == FORAGE_MAX_FIELDS) return -EINVAL;
    type->fields[type->count++] = kind;
    field += length + (field[length] == '.' ? 1 : 0);
  }
  return type->count > 0 ? 0 : -EINVAL;
}

/* Encodes "F1,F2" as the set's key: one field as is; several each padded to 32 bits. */
static int encode_key(char *fields, const struct key_type *type, unsigned char *key, size_t *size) {
  char *save = NULL;
  *size = 0;
  for (int i = 0; i < type->count; i++) {
    char *field = strtok_r(i == 0 ? fields : NULL, ",", &save);
    if (field == NULL) return -EINVAL;
    size_t width = type->fields[i] == '4' ? 4 : type->fields[i] == '6' ? 16 : 2;
    if (type->fields[i] == 'p') {
      char *end = NULL;
      unsigned long port = strtoul(field, &end, 10);
      if (*end != '\0' || port > 65535 || *field == '\0') return -EINVAL;
      uint16_t value = htons((uint16_t)port);
      memcpy(key + *size, &value, 2);
    } else if (inet_pton(type->fields[i] == '4' ? AF_INET : AF_INET6, field, key + *size) != 1) {
      return -EINVAL;
    }
    *size += type->count == 1 ? width : (width + 3) / 4 * 4;
  }
  return strtok_r(NULL, ",", &save) == NULL ? 0 : -EINVAL;
}

static int put_element(struct batch *b, char *token, const struct key_type *type, int with_timeout) {
  unsigned char key[64] = {0};
  size_t size = 0;
  char *slash = strchr(token, '/');
  unsigned long long timeout = 0;
  if (slash != NULL) {
    char *end = NULL;
    *slash = '\0';
    timeout = strtoull(slash + 1, &end, 10);
    if (*end != '\0' || timeout == 0 || timeout > 0xffffffffULL) return -EINVAL;
  }
  if (encode_key(token, type, key, &size) != 0) return -EINVAL;
  long element = put_attr(b, NFTA_LIST_ELEM | NLA_F_NESTED, NULL, 0);
  long nested = put_attr(b, NFTA_SET_ELEM_KEY | NLA_F_NESTED, NULL, 0);
  if (element < 0 || nested < 0 || put_attr(b, NFTA_DATA_VALUE, key, size) < 0) return -ENOMEM;
  close_nest(b, nested);
  uint64_t milliseconds = htobe64(timeout * 1000);
  if (with_timeout && timeout > 0 && put_attr(b, NFTA_SET_ELEM_TIMEOUT, &milliseconds, sizeof milliseconds) < 0) return -ENOMEM;
  close_nest(b, element);
  return 0;
}

static int is_op(const char *token) { return strcmp(token, "add") == 0 || strcmp(token, "delete") == 0 || strcmp(token, "flush") == 0; }

/* Starts a message of `kind` for TABLE's SET; returns its offset or -errno. */
static long start_message(struct batch *b, uint16_t kind, int add, uint8_t family, const char *table, const char *set) {
  long message = put_message(b, kind, (uint16_t)(NLM_F_ACK | (add ? NLM_F_CREATE : 0)), family, 0);
  if (message < 0 || put_attr(b, NFTA_SET_ELEM_LIST_TABLE, table, strlen(table) + 1) < 0 ||
      put_attr(b, NFTA_SET_ELEM_LIST_SET, set, strlen(set) + 1) < 0)
    return -ENOMEM;
  return message;
}

/*
 * The op at tokens[*at] (add, delete, flush) as one message, or several when its elements
 * outgrow one (a flush has none, and empties the set); leaves *at at the next op.
 */
static int put_op(struct batch *b, uint8_t family, const char *table, char **tokens, int count, int *at) {
  const char *op = tokens[(*at)++];
  int add = strcmp(op, "add") == 0, flush = strcmp(op, "flush") == 0;
  if (*at >= count) return -EINVAL;
  const char *set = tokens[(*at)++];
  if (strlen(set) >= NFT_SET_MAXNAMELEN) return -EINVAL;
  uint16_t kind = (NFNL_SUBSYS_NFTABLES << 8) | (add ? NFT_MSG_NEWSETELEM : NFT_MSG_DELSETELEM);
  if (flush) {
    long message = start_message(b, kind, 0, family, table, set);
    if (message < 0) return (int)message;
    close_message(b, message);
    return 0;
  }
  struct key_type type;
  if (*at >= count || parse_type(tokens[(*at)++], &type) != 0) return -EINVAL;
  if (*at >= count || is_op(tokens[*at])) return -EINVAL; /* an add or delete of nothing */
  while (*at < count && !is_op(tokens[*at])) {
    long message = start_message(b, kind, add, family, table, set);
    long elements = message < 0 ? message : put_attr(b, NFTA_SET_ELEM_LIST_ELEMENTS | NLA_F_NESTED, NULL, 0);
    if (elements < 0) return (int)elements;
    while (*at < count && !is_op(tokens[*at]) && b->length - (size_t)elements < FORAGE_ELEMENTS_PER_MESSAGE_BYTES) {
      int error = put_element(b, tokens[(*at)++], &type, add);
      if (error != 0) return error;
    }
    close_nest(b, elements);
    close_message(b, message);
  }
  return 0;
}

/* Splits the line at spaces, in place; returns the number of tokens, or -EINVAL past `room`. */
static int split(char *line, char **tokens, int room) {
  int count = 0;
  char *save = NULL;
  for (char *token = strtok_r(line, " \n", &save); token != NULL; token = strtok_r(NULL, " \n", &save)) {
    if (count == room) return -EINVAL;
    tokens[count++] = token;
  }
  return count;
}

/* Builds the request's batch: begin, its ops, end. */
static int build(struct batch *b, char *line, char **tokens, int room) {
  int count = split(line, tokens, room);
  if (count < 3) return -EINVAL;
  const char *family_name = tokens[0], *table = tokens[1];
  uint8_t family = strcmp(family_name, "inet") == 0 ? NFPROTO_INET : strcmp(family_name, "ip") == 0 ? NFPROTO_IPV4 : strcmp(family_name, "ip6") == 0 ? NFPROTO_IPV6 : 0;
  if (family == 0 || strlen(table) > NFT_TABLE_MAXNAMELEN - 1) return -EINVAL;
  b->length = 0;
  long begin = put_message(b, NFNL_MSG_BATCH_BEGIN, 0, AF_UNSPEC, NFNL_SUBSYS_NFTABLES);
  if (begin < 0) return (int)begin;
  close_message(b, begin);
  for (int at = 2; at < count;) {
    if (!is_op(tokens[at])) return -EINVAL;
    int error = put_op(b, family, table, tokens, count, &at);
    if (error != 0) return error;
  }
  long end = put_message(b, NFNL_MSG_BATCH_END, 0, AF_UNSPEC, NFNL_SUBSYS_NFTABLES);
  if (end < 0) return (int)end;
  close_message(b, end);
  return 0;
}

/*
 * Sends the batch and reads the kernel's answers: it handles a batch within sendmsg, so every
 * acknowledgement is queued by the time send returns. Returns 0 or the first error (-errno).
 */
static int commit(int fd, struct batch *b, char *reply, size_t size) {
  if (send(fd, b->data, b->length, 0) < 0) return -errno;
  int result = 0;
  for (;;) {
    ssize_t n = recv(fd, reply, size, MSG_DONTWAIT);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK ? result : -errno;
    size_t left = (size_t)n;
    for (struct nlmsghdr *h = (struct nlmsghdr *)reply; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
      if (h->nlmsg_type != NLMSG_ERROR) continue;
      int error = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
      if (error != 0 && result == 0) result = error;
    }
  }
}

static int open_socket(const char *netns) {
  if (netns != NULL) {
    int ns = open(netns, O_RDONLY | O_CLOEXEC);
    if (ns < 0 || setns(ns, CLONE_NEWNET) != 0) return -errno;
    close(ns);
  }
  int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
  struct sockaddr_nl address = {.nl_family = AF_NETLINK};
  int on = 1, buffer = 8 << 20;
  if (fd < 0 || bind(fd, (struct sockaddr *)&address, sizeof address) != 0) return -errno;
  /* Acknowledgements without a copy of the request; room for a large batch (a policy change). */
  setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &on, sizeof on);
  setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buffer, sizeof buffer);
  setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buffer, sizeof buffer);
  return fd;
}

int main(int argc, char **argv) {
  const char *netns = argc == 3 && strcmp(argv[1], "--netns") == 0 ? argv[2] : NULL;
  if (argc != 1 && netns == NULL) {
    fprintf(stderr, "usage: forage-set-elements [--netns PATH] (requests on stdin; started by the network guard)\n");
    return 64;
  }
  int fd = open_socket(netns);
  if (fd < 0) {
    fprintf(stderr, "forage-set-elements: %s\n", strerror(-fd));
    return 1;
  }
  struct batch b = {.seq = 1};
  static char reply[65536];
  char *line = NULL;
  size_t line_size = 0;
  while (getline(&line, &line_size, stdin) > 0) {
    size_t room = strlen(line) / 2 + 2;
    char **tokens = malloc(room * sizeof *tokens);
    int result = tokens == NULL ? -ENOMEM : build(&b, line, tokens, (int)room);
    if (result == 0) result = commit(fd, &b, reply, sizeof reply);
    free(tokens);
    if (result == 0) printf("ok\n");
    else printf("err %d %s\n", -result, strerror(-result));
    if (fflush(stdout) != 0) return 1;
  }
  return 0;
}

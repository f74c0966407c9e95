/*
 * forage-enter's way in from the host (`--join=PID`), and after a runtime's own entry (`--inside`,
 * which skips steps 1 and 2 and confines the waiter of step 3 as the relay is): one process does what nsenter, setpriv and
 * env did as a chain of five programs, so a command starts in a sandbox in a few milliseconds:
 *   1. joins the sandbox's cgroups (each --cgroup=FILE: a cgroup.procs file, host path);
 *   2. joins the namespaces of the sandbox's PID 1 (cgroup, ipc, uts, net, pid, mount) and its
 *      root, opened before any of them is joined;
 *   3. forks (a pid namespace takes effect for children); the parent waits, passes the signals it
 *      gets on to the child, and exits as the child did;
 *   4. in the child: a new session (never the host caller's terminal as controlling terminal), a
 *      fresh session keyring and the audit id (see filter.c); with --terminal=ROWS:COLS a new
 *      pseudo-terminal of the sandbox's own, the command forked onto it and this process left
 *      as its relay (terminal.c); then, for the command, without
 *      --user: root keeps the --keep-caps bounding set (or all capabilities without it); with
 *      --user=UID:GID: no capabilities, no supplementary groups, that uid and gid;
 *      with --nproc=N, RLIMIT_NPROC N (soft and hard) first, which a kernel that counts the
 *      sandbox's processes alone enforces (gVisor's: the gvisor runtime's tasksMax);
 *   5. changes to --cwd, sets no_new_privs and loads FILTER (a host path, or with --inside a path
 *      inside; read in step 0),
 *      replaces the environment with the --env=K=V entries and execs COMMAND (searched on the
 *      new PATH).
 * Any failure before the exec stops with status 126 and nothing is run (125: --cwd is missing;
 * 127: COMMAND was not found), as nsenter and env report theirs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "enter.h"
#include "join.h"
#include "terminal.h"

/* Capability names as setpriv(1) spells them (without CAP_), for --keep-caps. */
static const struct {
  const char *name;
  int value;
} capabilities[] = {
    {"chown", CAP_CHOWN},
    {"dac_override", CAP_DAC_OVERRIDE},
    {"dac_read_search", CAP_DAC_READ_SEARCH},
    {"fowner", CAP_FOWNER},
    {"fsetid", CAP_FSETID},
    {"kill", CAP_KILL},
    {"setgid", CAP_SETGID},
    {"setuid", CAP_SETUID},
    {"setpcap", CAP_SETPCAP},
    {"linux_immutable", CAP_LINUX_IMMUTABLE},
    {"net_bind_service", CAP_NET_BIND_SERVICE},
    {"net_broadcast", CAP_NET_BROADCAST},
    {"net_admin", CAP_NET_ADMIN},
    {"net_raw", CAP_NET_RAW},
    {"ipc_lock", CAP_IPC_LOCK},
    {"ipc_owner", CAP_IPC_OWNER},
    {"sys_module", CAP_SYS_MODULE},
    {"sys_rawio", CAP_SYS_RAWIO},
    {"sys_chroot", CAP_SYS_CHROOT},
    {"sys_ptrace", CAP_SYS_PTRACE},
    {"sys_pacct", CAP_SYS_PACCT},
    {"sys_admin", CAP_SYS_ADMIN},
    {"sys_boot", CAP_SYS_BOOT},
    {"sys_nice", CAP_SYS_NICE},
    {"sys_resource", CAP_SYS_RESOURCE},
    {"sys_time", CAP_SYS_TIME},
    {"sys_tty_config", CAP_SYS_TTY_CONFIG},
    {"mknod", CAP_MKNOD},
    {"lease", CAP_LEASE},
    {"audit_write", CAP_AUDIT_WRITE},
    {"audit_control", CAP_AUDIT_CONTROL},
    {"setfcap", CAP_SETFCAP},
    {"mac_override", CAP_MAC_OVERRIDE},
    {"mac_admin", CAP_MAC_ADMIN},
    {"syslog", CAP_SYSLOG},
    {"wake_alarm", CAP_WAKE_ALARM},
    {"block_suspend", CAP_BLOCK_SUSPEND},
    {"audit_read", CAP_AUDIT_READ},
    {"perfmon", CAP_PERFMON},
    {"bpf", CAP_BPF},
    {"checkpoint_restore", CAP_CHECKPOINT_RESTORE},
};
#define CAPABILITIES (sizeof(capabilities) / sizeof(capabilities[0]))

int join_known_capability(const char *name, size_t length) {
  for (size_t i = 0; i < CAPABILITIES; i++) {
    if (strlen(capabilities[i].name) == length && strncmp(capabilities[i].name, name, length) == 0) return 1;
  }
  return 0;
}

/* The namespaces joined, in nsenter's order: the cgroup one first, the mount one last. */
static const struct {
  const char *file;
  int type;
} namespaces[] = {{"cgroup", CLONE_NEWCGROUP}, {"ipc", CLONE_NEWIPC}, {"uts", CLONE_NEWUTS}, {"net", CLONE_NEWNET}, {"pid", CLONE_NEWPID}, {"mnt", CLONE_NEWNS}};
#define NAMESPACES (sizeof(namespaces) / sizeof(namespaces[0]))

/* Writes this process's pid into each cgroup.procs file: it joins the sandbox's groups. */
static int join_cgroups(const struct join_request *request) {
  char pid[16];
  int length = snprintf(pid, sizeof(pid), "%d", (int)getpid());
  for (int i = 0; i < request->cgroup_count; i++) {
    int fd = open(request->cgroups[i], O_WRONLY | O_CLOEXEC);
    if (fd < 0) return enter_fail(request->cgroups[i], errno);
    int written = (int)write(fd, pid, (size_t)length);
    int error = errno;
    close(fd);
    if (written != length) return enter_fail(request->cgroups[i], written < 0 ? error : EIO);
  }
  return 0;
}

/* Joins the namespaces and the root of `pid`, all opened before the first is entered. */
static int join_namespaces(int pid) {
  char path[64];
  int fds[NAMESPACES + 1];
  for (size_t i = 0; i <= NAMESPACES; i++) {
    if (i < NAMESPACES) snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, namespaces[i].file);
    else snprintf(path, sizeof(path), "/proc/%d/root", pid);
    fds[i] = open(path, O_RDONLY | O_CLOEXEC);
    if (fds[i] < 0) return enter_fail(path, errno);
  }
  for (size_t i = 0; i < NAMESPACES; i++) {
    if (setns(fds[i], namespaces[i].type) != 0) return enter_fail(namespaces[i].file, errno);
    close(fds[i]);
  }
  /* Where nspawn could not pivot_root (a chroot), only the root directory puts us inside. */
  if (fchdir(fds[NAMESPACES]) != 0 || chroot(".") != 0 || chdir("/") != 0) return enter_fail("entering the sandbox's root", errno);
  close(fds[NAMESPACES]);
  return 0;
}

/* The command's process group (its session's, see join_sandbox), which the waiter's signals go on to. */
static volatile pid_t joined_child;

/*
 * The child leads a session of its own, so a signal the host's terminal sends forage-enter's
 * group (C-c, C-\, a hang-up) or a caller's SIGTERM no longer reaches it by itself: it is passed
 * on. A terminal stop becomes SIGSTOP (an orphaned group ignores SIGTSTP); the wait below then
 * stops this process too, and continues the child when this process is continued.
 */
static void pass_on(int signal_number) {
  if (joined_child > 0) kill(-joined_child, signal_number == SIGTSTP ? SIGSTOP : signal_number);
}

static void pass_signals_on(pid_t child) {
  joined_child = child;
  struct sigaction action = {.sa_handler = pass_on};
  int passed[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGTSTP, SIGUSR1, SIGUSR2};
  for (size_t i = 0; i < sizeof passed / sizeof passed[0]; i++) sigaction(passed[i], &action, NULL);
}

/* The parent's part after the fork: wait, stop when the child stops, then exit as it did. */
static int wait_as_child(pid_t child) {
  int status = 0;
  pass_signals_on(child);
  for (;;) {
    pid_t done = waitpid(child, &status, WUNTRACED);
    if (done < 0 && errno == EINTR) continue;
    /* Its status is lost (never a success that was not seen). */
    if (done < 0) return FORAGE_FAILED;
    if (done == child && WIFSTOPPED(status)) {
      kill(getpid(), SIGSTOP);
      kill(-child, SIGCONT);
      continue;
    }
    break;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    signal(WTERMSIG(status), SIG_DFL);
    kill(getpid(), WTERMSIG(status));
  }
  return FORAGE_FAILED;
}

static int capability_kept(const struct join_request *request, int value) {
  if (request->keep_caps == NULL) return request->user == NULL;
  for (size_t i = 0; i < CAPABILITIES; i++) {
    if (capabilities[i].value != value) continue;
    const char *list = request->keep_caps, *name = capabilities[i].name;
    size_t length = strlen(name);
    for (const char *at = strstr(list, name); at != NULL; at = strstr(at + 1, name)) {
      if ((at == list || at[-1] == ',') && (at[length] == ',' || at[length] == '\0')) return 1;
    }
  }
  return 0;
}

/* Bounding set, inheritable and ambient capabilities cut to what is kept; then the user's ids. */
static int drop_privileges(const struct join_request *request) {
  for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++) {
    if (!capability_kept(request, cap) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) return enter_fail("dropping a capability", errno);
  }
  struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  struct __user_cap_data_struct data[2];
  if (syscall(SYS_capget, &header, data) != 0) return enter_fail("reading capabilities", errno);
  data[0].inheritable = data[1].inheritable = 0;
  if (syscall(SYS_capset, &header, data) != 0) return enter_fail("clearing inheritable capabilities", errno);
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) return enter_fail("clearing ambient capabilities", errno);
  /* Set while still root: a hard limit can only be raised with privilege, and is never again without. */
  struct rlimit processes = {.rlim_cur = (rlim_t)request->nproc, .rlim_max = (rlim_t)request->nproc};
  if (request->nproc > 0 && setrlimit(RLIMIT_NPROC, &processes) != 0) return enter_fail("limiting the processes", errno);
  if (request->user == NULL) return 0;
  /* From root to the user: the permitted and effective sets empty themselves on setresuid. */
  if (setgroups(0, NULL) != 0) return enter_fail("clearing groups", errno);
  if (setresgid(request->user->gid, request->user->gid, request->user->gid) != 0) return enter_fail("setting the group", errno);
  if (setresuid(request->user->uid, request->user->uid, request->user->uid) != 0) return enter_fail("setting the user", errno);
  return 0;
}

/* The command's part: privileges, directory, filter, environment, the command. */
static int become_command(const struct join_request *request, const struct enter_filter *filter) {
  int failed = drop_privileges(request);
  if (failed != 0) return failed;
  if (chdir(request->cwd) != 0) {
    enter_fail(request->cwd, errno);
    return 125;
  }
  if ((failed = enter_confine(filter)) != 0) return failed;
  if (clearenv() != 0) return enter_fail("clearing the environment", ENOMEM);
  for (int i = 0; i < request->env_count; i++) {
    if (putenv(request->env[i]) != 0) return enter_fail("setting the environment", errno);
  }
  execvp(request->command[0], request->command);
  int error = errno;
  enter_fail(request->command[0], error);
  return error == ENOENT ? 127 : FORAGE_FAILED;
}

/*
 * The relay's own confinement (it stays to copy bytes between the terminal and forage-ctl): the
 * agent's uid, or root without a single capability, no_new_privs and the sandbox's filter, and
 * not dumpable, so nothing of the agent's can read its descriptors through /proc or trace it.
 */
static int confine_relay(const struct join_request *request, const struct enter_filter *filter) {
  static const struct join_request no_capabilities = {.keep_caps = ""};
  int failed = drop_privileges(request->user != NULL ? request : &no_capabilities);
  if (failed != 0) return failed;
  if (request->user == NULL) {
    struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct none[2] = {{0}};
    if (syscall(SYS_capset, &header, none) != 0) return enter_fail("dropping the relay's capabilities", errno);
  }
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return enter_fail("making the relay undumpable", errno);
  return enter_confine(filter);
}

/*
 * The relay stays visible inside (ps, /proc/PID/cmdline are anyone's to read there), and its
 * argv names host paths (the state directory, the package, the cgroups), its environment is the
 * caller's: both are blanked, the name alone is left.
 */
static void blank_strings(const struct join_request *request) {
  static const char name[] = "forage-terminal";
  if (request->strings_start == NULL || request->strings_end <= request->strings_start) return;
  size_t length = (size_t)(request->strings_end - request->strings_start);
  memset(request->strings_start, 0, length);
  memcpy(request->strings_start, name, length > sizeof name ? sizeof name : length - 1);
  prctl(PR_SET_NAME, name, 0, 0, 0);
}

/* --terminal: the command on a new pseudo-terminal of the sandbox's, this process its relay. */
static int run_on_terminal(const struct join_request *request, const struct enter_filter *filter) {
  int peer = -1;
  uid_t uid = request->user == NULL ? (uid_t)-1 : request->user->uid;
  gid_t gid = request->user == NULL ? (gid_t)-1 : request->user->gid;
  int master = terminal_open(request->terminal, uid, gid, &peer);
  if (master < 0) return enter_fail("opening a terminal in the sandbox", errno);
  pid_t command = fork();
  if (command < 0) return enter_fail("fork", errno);
  if (command == 0) {
    close(master);
    if (terminal_take(peer) != 0) _exit(enter_fail("taking the sandbox's terminal", errno));
    _exit(become_command(request, filter));
  }
  close(peer);
  int failed = confine_relay(request, filter);
  if (failed != 0) {
    kill(command, SIGKILL);
    return failed;
  }
  blank_strings(request);
  return terminal_relay(master, command);
}

/*
 * The child's part: a session of its own first (whatever terminal the host's caller has, it is
 * not the controlling terminal of anything inside: /dev/tty opens nothing, TIOCSTI reaches
 * nothing), a fresh session keyring and the audit id, then the command, on a terminal or not.
 */
static int enter_joined(const struct join_request *request, const struct enter_filter *filter) {
  if (setsid() < 0) return enter_fail("starting a new session", errno);
  int failed = enter_fresh_session(request->audit_id);
  if (failed != 0) return failed;
  return request->terminal != NULL ? run_on_terminal(request, filter) : become_command(request, filter);
}

int join_sandbox(const struct join_request *request) {
  int error = 0;
  const struct enter_filter *filter = enter_read_filter(request->filter, &error);
  if (filter == NULL) return enter_fail(request->filter, error);
  /* --inside: a runtime's own way in (gVisor's runsc exec) put this process in the sandbox already. */
  int failed = request->leader == 0 ? 0 : join_cgroups(request);
  if (failed == 0 && request->leader != 0) failed = join_namespaces(request->leader);
  if (failed != 0) return failed;
  pid_t child = fork();
  if (child < 0) return enter_fail("fork", errno);
  if (child == 0) _exit(enter_joined(request, filter));
  /*
   * Inside already (--inside), the waiter lives in the sandbox's PID namespace for as long as the
   * command runs: confined as the relay is (the agent's uid or root without capabilities, not
   * dumpable, no_new_privs, the filter), so nothing inside can take it over. From the host it
   * stays outside, where nothing of the sandbox's sees it.
   */
  if (request->leader == 0) {
    int failed = confine_relay(request, filter);
    if (failed != 0) {
      kill(child, SIGKILL);
      return failed;
    }
  }
  return wait_as_child(child);
}

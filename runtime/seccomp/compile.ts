import { assemble, next, type Instruction } from "./bpf.js";
import { deniedSyscalls } from "../../generator/config/schema/seccomp.js";
import type { SyscallArch } from "./syscall-tables.js";

/** SECCOMP_RET_* (include/uapi/linux/seccomp.h) and errno values. */
export const RET_ALLOW = 0x7fff0000;
export const RET_ERRNO = 0x00050000;
export const EPERM = 1;
export const ENOSYS = 38;

/** Offsets in struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]. */
const NR = 0;
const ARCH = 4;
/** The low 32 bits of args[0] (little-endian): clone's and unshare's flags live there. */
const ARG0_LOW = 16;
/** The low 32 bits of args[1]: ioctl's request number (an unsigned int). */
const ARG1_LOW = 24;

/**
 * btrfs requests that make a subvolume (SUBVOL_CREATE, _V2) or a snapshot (SNAP_CREATE, _V2), from
 * include/uapi/linux/btrfs.h (checked with this machine's header). An unprivileged user may make
 * one in any directory they can write, and a new subvolume has its own unlimited qgroup: it would
 * carry the agent's writes past workspace.maxSize. Always refused: an agent has no use for them.
 */
const BTRFS_SUBVOLUME_IOCTLS = [0x5000940e, 0x50009418, 0x50009401, 0x50009417];

/**
 * TIOCSTI (push a byte into a terminal's input, as if typed) and TIOCLINUX (the Linux console's
 * selection paste, among others), from include/uapi/asm-generic/ioctls.h. A sandbox never holds a
 * host terminal (forage-enter starts a session of its own and gives a command a pseudo-terminal
 * made inside), so these are refused as defence in depth: a terminal that reached a sandbox by
 * some other path could otherwise be typed into, and hosts with dev.tty.legacy_tiocsti=1 allow it.
 */
const TERMINAL_INJECTION_IOCTLS = [0x5412, 0x541c];

/**
 * CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET (include/uapi/linux/sched.h).
 * CLONE_NEWTIME (0x80) only for unshare: in clone's flags that bit is part of the exit signal.
 */
const CLONE_NEW_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000;
const CLONE_NEWTIME = 0x80;

/**
 * Compiles the sandbox policy for one architecture: other architectures' entry points (i386's
 * int 0x80, arm32 compat) and x32 numbers are refused outright, since the tables below would not
 * match them; `clone` and `unshare` are refused only with namespace flags; `clone3` gets ENOSYS
 * (its flags are in memory, out of the filter's reach) so libc falls back to `clone`; every other
 * denied syscall gets EPERM, and so do btrfs subvolume and snapshot creation and typing into a
 * terminal (TIOCSTI, TIOCLINUX); the rest is allowed.
 * @example compileFilter(x86_64, ["ptrace"]) // a Buffer of struct sock_filter, 8 bytes each
 */
export function compileFilter(arch: SyscallArch, allow: readonly string[] = []): Buffer {
  const denied = deniedSyscalls(allow);
  const number = (name: string): number => {
    const nr = arch.numbers[name];
    if (nr === undefined) throw new Error(`internal: no ${arch.name} syscall number for ${name}`);
    return nr;
  };
  const program: Instruction[] = [
    { op: "load", offset: ARCH },
    { op: "jeq", k: arch.auditArch, then: next, otherwise: "eperm" },
    { op: "load", offset: NR },
    ...(arch.x32Bit === null ? [] : [{ op: "jge", k: arch.x32Bit, then: "eperm", otherwise: next } as const]),
  ];
  const flagChecks: Instruction[] = [];
  for (const name of denied) {
    if (name === "clone3") {
      program.push({ op: "jeq", k: number(name), then: "enosys", otherwise: next });
    } else if (name === "clone" || name === "unshare") {
      program.push({ op: "jeq", k: number(name), then: `${name}-flags`, otherwise: next });
      const mask = name === "clone" ? CLONE_NEW_FLAGS : CLONE_NEW_FLAGS | CLONE_NEWTIME;
      flagChecks.push(
        { op: "label", name: `${name}-flags` },
        { op: "load", offset: ARG0_LOW },
        { op: "jset", k: mask, then: "eperm", otherwise: next },
        { op: "return", value: RET_ALLOW },
      );
    } else {
      program.push({ op: "jeq", k: number(name), then: "eperm", otherwise: next });
    }
  }
  program.push(
    { op: "jeq", k: number("ioctl"), then: "ioctl-request", otherwise: next },
    { op: "return", value: RET_ALLOW },
    ...flagChecks,
    { op: "label", name: "ioctl-request" },
    { op: "load", offset: ARG1_LOW },
    ...[...BTRFS_SUBVOLUME_IOCTLS, ...TERMINAL_INJECTION_IOCTLS].map(
      (request) => ({ op: "jeq", k: request, then: "eperm", otherwise: next }) as const,
    ),
    { op: "return", value: RET_ALLOW },
    { op: "label", name: "eperm" },
    { op: "return", value: RET_ERRNO | EPERM },
    { op: "label", name: "enosys" },
    { op: "return", value: RET_ERRNO | ENOSYS },
  );
  return assemble(program);
}

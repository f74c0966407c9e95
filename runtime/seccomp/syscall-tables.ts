/**
 * Syscall numbers of the calls the filter judges, per architecture. Only these: a syscall the
 * policy never names needs no number. Written from the kernel's tables:
 * - x86_64: arch/x86/entry/syscalls/syscall_64.tbl (the "common"/"64" ABI rows)
 * - aarch64: include/uapi/asm-generic/unistd.h (aarch64 uses the generic table)
 * Checked against this machine's /usr/include/x86_64-linux-gnu/asm/unistd_64.h and
 * /usr/include/asm-generic/unistd.h; open_tree_attr (Linux 6.15) from the kernel's tables.
 */

import { SandboxError } from "../core/errors.js";

/** What a filter needs to know about one architecture. */
export interface SyscallArch {
  name: "x86_64" | "aarch64";
  /** AUDIT_ARCH_* (include/uapi/linux/audit.h): the `arch` field of struct seccomp_data. */
  auditArch: number;
  /**
   * Set in `nr` for the x32 ABI (__X32_SYSCALL_BIT, arch/x86/include/uapi/asm/unistd.h), which
   * shares AUDIT_ARCH_X86_64; null where there is no such second ABI.
   */
  x32Bit: number | null;
  numbers: Readonly<Record<string, number>>;
}

/** Numbers new enough to share one value on every architecture (the unified range, 403+). */
const unified = {
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  clone3: 435,
  mount_setattr: 442,
  open_tree_attr: 467,
};

export const x86_64: SyscallArch = {
  name: "x86_64",
  auditArch: 0xc000003e,
  x32Bit: 0x40000000,
  numbers: {
    ...unified,
    ioctl: 16,
    clone: 56,
    ptrace: 101,
    pivot_root: 155,
    adjtimex: 159,
    settimeofday: 164,
    mount: 165,
    umount2: 166,
    swapon: 167,
    swapoff: 168,
    init_module: 175,
    delete_module: 176,
    clock_settime: 227,
    kexec_load: 246,
    add_key: 248,
    request_key: 249,
    keyctl: 250,
    unshare: 272,
    perf_event_open: 298,
    open_by_handle_at: 304,
    clock_adjtime: 305,
    setns: 308,
    process_vm_readv: 310,
    process_vm_writev: 311,
    finit_module: 313,
    kexec_file_load: 320,
    bpf: 321,
    userfaultfd: 323,
  },
};

export const aarch64: SyscallArch = {
  name: "aarch64",
  auditArch: 0xc00000b7,
  x32Bit: null,
  numbers: {
    ...unified,
    ioctl: 29,
    umount2: 39,
    mount: 40,
    pivot_root: 41,
    unshare: 97,
    kexec_load: 104,
    init_module: 105,
    delete_module: 106,
    clock_settime: 112,
    ptrace: 117,
    settimeofday: 170,
    adjtimex: 171,
    add_key: 217,
    request_key: 218,
    keyctl: 219,
    clone: 220,
    swapon: 224,
    swapoff: 225,
    perf_event_open: 241,
    open_by_handle_at: 265,
    clock_adjtime: 266,
    setns: 268,
    process_vm_readv: 270,
    process_vm_writev: 271,
    finit_module: 273,
    bpf: 280,
    userfaultfd: 282,
    kexec_file_load: 294,
  },
};

/** The table of the architecture this process runs on; other hosts get a clear refusal. */
export function runningArch(arch: string = process.arch): SyscallArch {
  if (arch === "x64") return x86_64;
  if (arch === "arm64") return aarch64;
  throw new SandboxError(
    `the seccomp filter supports x86_64 and aarch64 hosts only, this one is ${arch}: run Forage on one of those`,
    "general",
  );
}

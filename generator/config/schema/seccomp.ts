import { z } from "zod";

/**
 * What the sandbox's seccomp filter refuses, by named group (runtime/seccomp/ compiles it):
 * default allow, these denied with EPERM, never a kill (a tool probing for a feature must fail
 * cleanly and carry on). A template may allow back a whole group or a single syscall by name.
 */
export const seccompGroups = {
  /** New namespaces are how an unprivileged user gets a root-owned view of mounts and nets. */
  namespaces: ["unshare", "setns", "clone", "clone3"],
  /** The sandbox's mounts are set up from outside; nothing inside may rearrange them. */
  mount: [
    "mount",
    "umount2",
    "pivot_root",
    "open_tree",
    "open_tree_attr",
    "move_mount",
    "fsopen",
    "fsmount",
    "fsconfig",
    "fspick",
    "mount_setattr",
  ],
  /** Keyrings are per uid, not per container: the agent's uid shares the host user's keyring. */
  keyring: ["keyctl", "add_key", "request_key"],
  bpf: ["bpf"],
  perf: ["perf_event_open"],
  /** io_uring and userfaultfd are the kernel's richest sources of exploitable bugs. */
  "io-uring": ["io_uring_setup", "io_uring_enter", "io_uring_register"],
  userfaultfd: ["userfaultfd"],
  modules: ["init_module", "finit_module", "delete_module"],
  kexec: ["kexec_load", "kexec_file_load"],
  clock: ["settimeofday", "clock_settime", "clock_adjtime", "adjtimex"],
  swap: ["swapon", "swapoff"],
  /**
   * The sandbox's pid namespace already hides outside processes, but root inside (sshd, shell)
   * could attach to sessions of other users in the sandbox, and ptrace is a frequent kernel
   * attack surface; debuggers are allowed back per template. process_vm_* need the same rights.
   */
  ptrace: ["ptrace", "process_vm_readv", "process_vm_writev"],
  /** open_by_handle_at opens any inode on a mounted filesystem by handle, around the binds. */
  handles: ["open_by_handle_at"],
} as const satisfies Record<string, readonly string[]>;

export type SeccompGroup = keyof typeof seccompGroups;

/** Every syscall the filter judges. */
export const filteredSyscalls: readonly string[] = Object.values(seccompGroups).flat();

/** Names a template may allow back: groups first, then syscalls. */
export const allowableNames: readonly string[] = [...new Set([...Object.keys(seccompGroups), ...filteredSyscalls])];

/**
 * The syscalls denied once `allow` (group or syscall names, already validated) is taken back.
 * @example deniedSyscalls(["namespaces", "ptrace"]) // mount, umount2, …, without unshare/setns/clone/clone3/ptrace
 */
export function deniedSyscalls(allow: readonly string[]): string[] {
  const allowed = new Set(
    allow.flatMap((name) => (name in seccompGroups ? [...seccompGroups[name as SeccompGroup]] : [name])),
  );
  return filteredSyscalls.filter((syscall) => !allowed.has(syscall));
}

/** The template's `seccomp` field. */
export const seccompSchema = z
  .strictObject({
    allow: z
      .array(
        z.enum(allowableNames as [string, ...string[]], {
          error: `must be a seccomp group (${Object.keys(seccompGroups).join(", ")}) or one of their syscalls (${filteredSyscalls.join(", ")})`,
        }),
      )
      .max(allowableNames.length)
      .refine((names) => !names.some((name) => (seccompGroups.namespaces as readonly string[]).includes(name)), {
        // Only all four can hold everywhere: the sessions a NixOS sandbox starts itself are guarded by
        // systemd's RestrictNamespaces (modules/lib/seccomp-service-config.nix), which has no per-call switch.
        error: `${seccompGroups.namespaces.join(", ")} are allowed back together, as the group "namespaces": a NixOS sandbox's own session is guarded by systemd's RestrictNamespaces, which judges all four by their namespace flags, so one alone would not hold there`,
      })
      .optional()
      .describe(
        `Groups or syscalls the sandbox's seccomp filter allows back (status warns). Groups: ${Object.keys(seccompGroups).join(", ")}; a name that is both a group and a syscall (mount, bpf, userfaultfd, ptrace) means the group. Default: none.`,
      ),
  })
  .describe("The seccomp filter every process in the sandbox runs under.");

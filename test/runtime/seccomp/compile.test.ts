import { describe, expect, it } from "vitest";
import { compileFilter, ENOSYS, EPERM, RET_ALLOW, RET_ERRNO } from "../../../runtime/seccomp/compile.js";
import {
  deniedSyscalls,
  filteredSyscalls,
  seccompGroups,
  seccompSchema,
} from "../../../generator/config/schema/seccomp.js";
import { aarch64, runningArch, x86_64, type SyscallArch } from "../../../runtime/seccomp/syscall-tables.js";
import { runFilter } from "./bpf-interpreter.js";

const eperm = RET_ERRNO | EPERM;
const enosys = RET_ERRNO | ENOSYS;
const CLONE_NEWUSER = 0x10000000n;
const CLONE_NEWNS = 0x00020000n;
/** What glibc's fork() passes: CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD. */
const FORK_FLAGS = 0x01200011n;
const SIGCHLD = 17n;
/** Arbitrary numbers no policy names (read, write, openat on x86_64; getpid on aarch64). */
const harmless = { x86_64: [0, 1, 257], aarch64: [172, 63, 56] };

function verdict(arch: SyscallArch, program: Buffer, name: string, args: bigint[] = []): number {
  const nr = arch.numbers[name];
  if (nr === undefined) throw new Error(`no number for ${name}`);
  return runFilter(program, { nr, arch: arch.auditArch, args });
}

describe.each([x86_64, aarch64])("the seccomp filter for $name", (arch) => {
  const program = compileFilter(arch);

  it("allows syscalls the policy does not name", () => {
    for (const nr of harmless[arch.name]) expect(runFilter(program, { nr, arch: arch.auditArch })).toBe(RET_ALLOW);
  });

  it("refuses every filtered syscall except clone/unshare/clone3 with EPERM", () => {
    for (const name of filteredSyscalls.filter((n) => !["clone", "unshare", "clone3"].includes(n))) {
      expect([name, verdict(arch, program, name)]).toEqual([name, eperm]);
    }
  });

  it("refuses clone and unshare with a namespace flag, and allows them without", () => {
    expect(verdict(arch, program, "clone", [CLONE_NEWUSER | SIGCHLD])).toBe(eperm);
    expect(verdict(arch, program, "clone", [CLONE_NEWNS])).toBe(eperm);
    expect(verdict(arch, program, "clone", [FORK_FLAGS])).toBe(RET_ALLOW);
    expect(verdict(arch, program, "unshare", [CLONE_NEWUSER])).toBe(eperm);
    expect(verdict(arch, program, "unshare", [0x80n])).toBe(eperm); // CLONE_NEWTIME
    expect(verdict(arch, program, "unshare", [0x400n])).toBe(RET_ALLOW); // CLONE_FILES
  });

  it("answers clone3 with ENOSYS whatever its arguments, so libc falls back to clone", () => {
    expect(verdict(arch, program, "clone3", [0n, 88n])).toBe(enosys);
  });

  it("refuses btrfs subvolume and snapshot creation, and allows every other ioctl", () => {
    // BTRFS_IOC_SUBVOL_CREATE, _V2, SNAP_CREATE, _V2 (include/uapi/linux/btrfs.h): a new subvolume escapes workspace.maxSize.
    for (const request of [0x5000940en, 0x50009418n, 0x50009401n, 0x50009417n])
      expect(verdict(arch, program, "ioctl", [3n, request])).toBe(eperm);
    expect(verdict(arch, program, "ioctl", [1n, 0x5401n])).toBe(RET_ALLOW); // TCGETS
    expect(verdict(arch, program, "ioctl", [3n, 0x8100000050009418n])).toBe(eperm); // the kernel reads only the low 32 bits of the request
    expect(verdict(arch, compileFilter(arch, ["namespaces", "mount"]), "ioctl", [3n, 0x5000940en])).toBe(eperm);
  });

  it("refuses typing into a terminal (TIOCSTI, TIOCLINUX), whatever the template allows back", () => {
    // include/uapi/asm-generic/ioctls.h: TIOCSTI 0x5412, TIOCLINUX 0x541C; TIOCSWINSZ 0x5414 stays allowed.
    for (const allowed of [program, compileFilter(arch, ["namespaces", "mount", "ptrace", "keyring"])]) {
      expect(verdict(arch, allowed, "ioctl", [0n, 0x5412n])).toBe(eperm);
      expect(verdict(arch, allowed, "ioctl", [0n, 0x541cn])).toBe(eperm);
    }
    expect(verdict(arch, program, "ioctl", [0n, 0x5414n])).toBe(RET_ALLOW);
  });

  it("refuses every call from another architecture's entry point", () => {
    for (const other of [0x40000003, 0x40000028, x86_64.auditArch, aarch64.auditArch].filter(
      (a) => a !== arch.auditArch,
    )) {
      expect(runFilter(program, { nr: 39, arch: other })).toBe(eperm);
    }
  });

  it("allows a group back whole, and a single syscall back alone", () => {
    const withNamespaces = compileFilter(arch, ["namespaces", "ptrace"]);
    expect(verdict(arch, withNamespaces, "clone", [CLONE_NEWUSER])).toBe(RET_ALLOW);
    expect(verdict(arch, withNamespaces, "unshare", [CLONE_NEWUSER])).toBe(RET_ALLOW);
    expect(verdict(arch, withNamespaces, "clone3")).toBe(RET_ALLOW);
    expect(verdict(arch, withNamespaces, "ptrace")).toBe(RET_ALLOW);
    expect(verdict(arch, withNamespaces, "mount")).toBe(eperm);
    const withKeyctl = compileFilter(arch, ["keyctl"]);
    expect(verdict(arch, withKeyctl, "keyctl")).toBe(RET_ALLOW);
    expect(verdict(arch, withKeyctl, "add_key")).toBe(eperm);
  });
});

describe("the x86_64 filter's other ABIs", () => {
  const program = compileFilter(x86_64);
  it("refuses x32 syscall numbers (the x32 bit set), even for a harmless call", () => {
    expect(runFilter(program, { nr: 0x40000000 | 0, arch: x86_64.auditArch })).toBe(eperm);
    expect(runFilter(program, { nr: 0x40000000 | 39, arch: x86_64.auditArch })).toBe(eperm);
  });
});

describe("the seccomp policy", () => {
  it("has a number for every filtered syscall on both architectures", () => {
    for (const arch of [x86_64, aarch64])
      for (const name of filteredSyscalls) expect([arch.name, name, arch.numbers[name]]).not.toContainEqual(undefined);
  });

  it("accepts groups and their syscalls, and names what it accepts when given anything else", () => {
    expect(seccompSchema.safeParse({ allow: ["namespaces", "ptrace", "keyctl"] }).success).toBe(true);
    const refused = seccompSchema.safeParse({ allow: ["read"] });
    expect(refused.error?.issues[0]?.message).toMatch(
      /must be a seccomp group \(namespaces, mount, keyring.*\) or one of their syscalls \(unshare, setns/,
    );
  });

  it("takes back exactly the syscalls of an allowed group", () => {
    expect(deniedSyscalls(["keyring"])).toEqual(
      filteredSyscalls.filter((n) => !seccompGroups.keyring.includes(n as never)),
    );
  });

  it("generates only for x86_64 and aarch64 hosts, and says so for others", () => {
    expect(runningArch("x64")).toBe(x86_64);
    expect(runningArch("arm64")).toBe(aarch64);
    // A user error (exit 1, what to do), not "internal error (this is a bug)".
    expect(() => runningArch("ia32")).toThrow(
      expect.objectContaining({
        name: "SandboxError",
        kind: "general",
        message: expect.stringMatching(/x86_64 and aarch64 hosts only/),
      }),
    );
  });
});

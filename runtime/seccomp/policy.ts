import { seccompGroups, filteredSyscalls, type SeccompGroup } from "../../generator/config/schema/seccomp.js";

/**
 * The syscalls denied once `allow` (group or syscall names, already validated) is taken back.
 * @example deniedSyscalls(["namespaces", "ptrace"]) // mount, umount2, …, without unshare/setns/clone/clone3/ptrace
 */
export function deniedSyscalls(allow: readonly string[]): string[] {
  const allowed = new Set(allow.flatMap((name) => (name in seccompGroups ? [...seccompGroups[name as SeccompGroup]] : [name])));
  return filteredSyscalls.filter((syscall) => !allowed.has(syscall));
}

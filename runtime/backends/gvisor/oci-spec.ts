import type { Bind } from "../../core/bind.js";

/** What a gvisor sandbox's OCI bundle says: its root, mounts, network, and what runs as PID 1. */
export interface SandboxSpec {
  hostname: string;
  /** The laid-out root (a tmpfs the sandbox writes to; ephemeral). */
  root: string;
  /** Every bind (staged where a user controls the source), in order: a later one may lie inside an earlier. */
  binds: readonly Bind[];
  networkNamespacePath: string;
  /** PID 1's argv (through forage-enter, so it runs under the sandbox's filter too). */
  init: readonly string[];
  user: { uid: number; gid: number };
  /**
   * The sizes of gVisor's own /tmp and /dev/shm (its memory, inside the sandbox's memory limit):
   * a write that does not fit fails with ENOSPC instead of taking the sandbox down.
   */
  tmpfsBytes: { tmp: number; devShm: number };
  /** PID 1's resource limits (RLIMIT_NPROC for tasksMax: see task-limit.ts). */
  rlimits: readonly { type: string; hard: number; soft: number }[];
  env: Record<string, string>;
}

/**
 * The OCI runtime spec (config.json) runsc starts the sandbox from. PID 1 runs as the agent with
 * no capability and no_new_privs; every command comes in later through `runsc exec` and
 * forage-enter. Binds are recursive (a workspace's pinned protected paths come with it, each
 * keeping its read-only flag) and served by gVisor's gofer.
 * @example sandboxSpec({ hostname: "demo", root: "/run/forage/roots/demo", … }).mounts[0] // { destination: "/proc", type: "proc", source: "proc" }
 */
export function sandboxSpec(spec: SandboxSpec): object {
  const none: string[] = [];
  return {
    ociVersion: "1.0.2",
    process: {
      terminal: false,
      user: { uid: spec.user.uid, gid: spec.user.gid },
      args: [...spec.init],
      env: Object.entries(spec.env).map(([key, value]) => `${key}=${value}`),
      cwd: "/",
      capabilities: { bounding: none, effective: none, permitted: none, inheritable: none, ambient: none },
      noNewPrivileges: true,
      rlimits: spec.rlimits,
    },
    root: { path: spec.root, readonly: false },
    hostname: spec.hostname,
    mounts: [
      { destination: "/proc", type: "proc", source: "proc" },
      { destination: "/dev", type: "tmpfs", source: "tmpfs", options: ["nosuid", "mode=755"] },
      { destination: "/sys", type: "sysfs", source: "sysfs", options: ["nosuid", "noexec", "nodev", "ro"] },
      {
        destination: "/tmp",
        type: "tmpfs",
        source: "tmpfs",
        options: ["nosuid", "nodev", "mode=1777", `size=${spec.tmpfsBytes.tmp}`],
      },
      {
        destination: "/dev/shm",
        type: "tmpfs",
        source: "tmpfs",
        options: ["nosuid", "nodev", "mode=1777", `size=${spec.tmpfsBytes.devShm}`],
      },
      ...spec.binds.map((bind) => ({
        destination: bind.target,
        type: "bind",
        source: bind.source,
        options: ["rbind", bind.readOnly ? "ro" : "rw"],
      })),
    ],
    linux: {
      namespaces: [
        { type: "pid" },
        { type: "ipc" },
        { type: "uts" },
        { type: "mount" },
        { type: "network", path: spec.networkNamespacePath },
      ],
    },
  };
}

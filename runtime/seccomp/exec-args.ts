import { enterHelperPath, sandboxFilterPath } from "./sandbox-filter.js";
import type { RuntimePaths } from "../core/paths.js";

/** Who runs a command inside a sandbox, where, and with what environment. */
export interface ExecSpec {
  sandbox: string;
  leaderPid: number;
  /** The sandbox's cgroup.procs files (host paths) the command joins first, so its limits apply. */
  cgroupProcs: readonly string[];
  /** null: root (forage-ctl shell, sshd); otherwise the agent user. */
  user: { uid: number; gid: number } | null;
  /** For root: keep only these capabilities (e.g. what sshd needs). */
  rootCapabilities?: readonly string[];
  /** The kernel's records of what the filter refused carry it (kernel-refusals.ts). */
  auditId?: number;
  cwd: string;
  command: readonly string[];
  /** The command's whole environment: nothing of the caller's leaks in. */
  env: Record<string, string>;
  /** Run the command on a new pseudo-terminal of this size, made inside and relayed (native/terminal.c). */
  terminal?: { rows: number; cols: number };
}

/**
 * Argv that runs a command inside a running sandbox in one process (native/join.c): the
 * seccomp helper joins the sandbox's cgroups and its PID 1's namespaces and root, starts a new
 * session (so no terminal of the caller's is ever the command's), drops to the
 * agent's uid/gid with no capabilities (or keeps root with only `rootCapabilities`), gives it a
 * fresh session keyring, no_new_privs and the sandbox's filter, a clean environment, and execs
 * the command, e.g. `forage-enter --join=4242 --cgroup=/sys/fs/cgroup/…/cgroup.procs
 * --user=1000:100 --cwd=/workspace --env=PATH=… <state>/seccomp/NAME.bpf git status`.
 */
export function execArgs(paths: RuntimePaths, spec: ExecSpec): string[] {
  return [
    enterHelperPath(),
    `--join=${spec.leaderPid}`,
    ...spec.cgroupProcs.map((file) => `--cgroup=${file}`),
    ...commandOptions(spec),
    ...(spec.auditId === undefined ? [] : [`--audit-id=${spec.auditId}`]),
    sandboxFilterPath(paths, spec.sandbox),
    ...spec.command,
  ];
}

/**
 * forage-enter's options saying who runs the command (the agent, or root keeping only the named
 * capabilities), where, with what environment, on a terminal or not: the same for every way in
 * (`--join` from the host, `--inside` after a runtime's own entry).
 */
export function commandOptions(
  spec: Pick<ExecSpec, "user" | "rootCapabilities" | "cwd" | "env" | "terminal">,
): string[] {
  const who =
    spec.user !== null
      ? [`--user=${spec.user.uid}:${spec.user.gid}`]
      : spec.rootCapabilities === undefined
        ? []
        : [`--keep-caps=${spec.rootCapabilities.join(",")}`];
  return [
    ...who,
    `--cwd=${spec.cwd}`,
    ...Object.entries(spec.env).map(([key, value]) => `--env=${key}=${value}`),
    ...(spec.terminal === undefined ? [] : [`--terminal=${spec.terminal.rows}:${spec.terminal.cols}`]),
  ];
}

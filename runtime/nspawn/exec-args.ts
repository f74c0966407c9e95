/** Who runs a command inside a sandbox, where, and with what environment. */
export interface ExecSpec {
  leaderPid: number;
  /** Directory inside holding setpriv and env (the root kind's toolDir). */
  toolDir: string;
  /** null: root (forage-ctl shell, sshd); otherwise the agent user. */
  user: { name: string; uid: number; gid: number } | null;
  /** For root: keep only these capabilities (e.g. what sshd needs) and set no_new_privs. */
  rootCapabilities?: string[];
  /**
   * Runs first inside: the seccomp helper and its program (runtime/seccomp/sandbox-filter.ts), so
   * every command entering is filtered and gets its own session keyring; [] for none.
   */
  enter: string[];
  cwd: string;
  command: string[];
  env: Record<string, string>;
}

/**
 * Argv that runs a command inside a running container: nsenter joins its namespaces and root,
 * the seccomp helper gives it a fresh session keyring and the sandbox's filter, setpriv drops
 * to the agent's uid/gid with no capabilities (bounding set cleared) and no_new_privs, and
 * `env -i` gives it a clean environment (nothing from the caller leaks in).
 */
export function execArgs(spec: ExecSpec): string[] {
  // nsenter resolves --wd on the host side, so the directory is changed inside, by env -C.
  const enter = ["nsenter", `--target=${spec.leaderPid}`, "--mount", "--uts", "--ipc", "--net", "--pid", "--root", "--"];
  const restrictRoot =
    spec.rootCapabilities === undefined ? [] : [`${spec.toolDir}/setpriv`, `--bounding-set=-all,${spec.rootCapabilities.map((c) => `+${c}`).join(",")}`, "--inh-caps=-all", "--no-new-privs", "--"];
  const drop =
    spec.user === null
      ? restrictRoot
      : [`${spec.toolDir}/setpriv`, `--reuid=${spec.user.uid}`, `--regid=${spec.user.gid}`, "--clear-groups", "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--"];
  const environment = Object.entries(spec.env).map(([key, value]) => `${key}=${value}`);
  return [...enter, ...spec.enter, ...drop, `${spec.toolDir}/env`, "-i", `--chdir=${spec.cwd}`, ...environment, ...spec.command];
}

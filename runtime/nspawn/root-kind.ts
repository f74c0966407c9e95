/** The runtimes, by where a sandbox's root comes from (all run it with systemd-nspawn). */
export type SandboxRuntime = "nspawn" | "nspawn-nix" | "extra-container";

/** What differs inside a sandbox between a host root and a NixOS system root. */
export interface RootKind {
  /** True when the root is a NixOS system that runs its own init, session and sshd. */
  nixos: boolean;
  /** Directory inside the sandbox holding util-linux's setpriv and coreutils' env. */
  toolDir: string;
  /** PATH of the processes forage-ctl starts inside. */
  path: (user: string | null) => string;
  /** Login shell inside (also what script(1) runs its command with). */
  shell: string;
}

/** A tmpfs root with the host's /usr read-only: agent launchers first, then /usr. */
const hostRoot: RootKind = {
  nixos: false,
  toolDir: "/usr/bin",
  path: () => "/opt/forage/bin:/usr/local/bin:/usr/bin:/bin",
  shell: "/bin/bash",
};

/** A NixOS system (nspawn-nix, extra-container): NixOS's standard PATH. */
const nixRoot: RootKind = {
  nixos: true,
  toolDir: "/run/current-system/sw/bin",
  path: (user) => [...(user === null ? [] : [`/etc/profiles/per-user/${user}/bin`]), "/run/wrappers/bin", "/run/current-system/sw/bin"].join(":"),
  shell: "/run/current-system/sw/bin/bash",
};

export function rootKindOf(runtime: SandboxRuntime): RootKind {
  return runtime === "nspawn" ? hostRoot : nixRoot;
}

/** The runtimes that run a sandbox with systemd-nspawn, by where its root comes from. */
export type NspawnRuntime = "nspawn" | "nspawn-nix";

/** What differs inside a sandbox between a host root and a NixOS system root. */
export interface RootKind {
  runtime: NspawnRuntime;
  /** Directory inside the sandbox holding util-linux's setpriv and coreutils' env. */
  toolDir: string;
  /** PATH of the processes forage-ctl starts inside. */
  path: (user: string | null) => string;
  /** Login shell inside (also what script(1) runs its command with). */
  shell: string;
}

/** A tmpfs root with the host's /usr read-only: agent launchers first, then /usr. */
const hostRoot: RootKind = {
  runtime: "nspawn",
  toolDir: "/usr/bin",
  path: () => "/opt/forage/bin:/usr/local/bin:/usr/bin:/bin",
  shell: "/bin/bash",
};

/** The template's prebuilt NixOS system booted from its init: NixOS's standard PATH. */
const nixRoot: RootKind = {
  runtime: "nspawn-nix",
  toolDir: "/run/current-system/sw/bin",
  path: (user) => [...(user === null ? [] : [`/etc/profiles/per-user/${user}/bin`]), "/run/wrappers/bin", "/run/current-system/sw/bin"].join(":"),
  shell: "/run/current-system/sw/bin/bash",
};

export function rootKindOf(runtime: NspawnRuntime): RootKind {
  return runtime === "nspawn-nix" ? nixRoot : hostRoot;
}

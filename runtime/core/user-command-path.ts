import { findExecutable } from "./find-executable.js";
import { SandboxError } from "./errors.js";

/**
 * Where the system's own programs are, directories only root may change: NixOS's setuid wrappers
 * and system profile, then the FHS directories (which on NixOS hold almost nothing). A program
 * root itself starts is looked up here and nowhere else.
 */
export const systemProgramDirs: readonly string[] = [
  "/run/wrappers/bin",
  "/run/current-system/sw/bin",
  "/usr/local/sbin",
  "/usr/local/bin",
  "/usr/sbin",
  "/usr/bin",
  "/sbin",
  "/bin",
];

/**
 * The PATH of a program run as the user (git and jj on their repositories, with their credential
 * helpers and ssh; notify-send): their own NixOS profiles first (home-manager's ~/.nix-profile,
 * users.users.<name>.packages in /etc/profiles/per-user/<name>), then the system's. On a host
 * without Nix those directories do not exist and the FHS ones answer. Only for lookups made as
 * the user (after the uid is dropped): ~/.nix-profile is theirs to change, so root must never
 * resolve a program through it (see systemProgram).
 *
 * @example userCommandPath({ name: "alice", home: "/home/alice" })
 * // "/home/alice/.nix-profile/bin:/etc/profiles/per-user/alice/bin:/run/wrappers/bin:/run/current-system/sw/bin:/usr/local/sbin:…:/bin"
 */
export function userCommandPath(user: { home: string; name?: string | undefined }): string {
  const profiles = [
    `${user.home}/.nix-profile/bin`,
    ...(user.name === undefined ? [] : [`/etc/profiles/per-user/${user.name}/bin`]),
  ];
  return [...profiles, ...systemProgramDirs].join(":");
}

/** A system program's absolute path for root to start (e.g. setpriv), found in systemProgramDirs only. */
export async function systemProgram(name: string): Promise<string> {
  const found = await findExecutable([name], systemProgramDirs);
  if (found === undefined)
    throw new SandboxError(`${name} is not installed in ${systemProgramDirs.join(", ")}`, "general");
  return found;
}

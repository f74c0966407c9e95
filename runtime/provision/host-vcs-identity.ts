import { lstat } from "node:fs/promises";
import { runCommand } from "../core/run-command.js";
import { identitySchema } from "../../generator/config/schema/identity.js";
import { userCommandPath } from "../core/user-command-path.js";

/** Whose identity: the account, its home, and its name when known (its NixOS per-user profile). */
interface HostAccount {
  home: string;
  uid: number;
  gid: number;
  name?: string;
}

/**
 * The host user's own git identity (user.name / user.email from ~/.gitconfig or
 * ~/.config/git/config), the lowest level of the identity precedence: host VCS config < host
 * agentIdentity < template < CLI flags. Includes are not followed; values that would not pass
 * the config's own checks are ignored, as is a host without git.
 */
export async function hostGitIdentity(account: HostAccount): Promise<{ gitUser?: string; gitEmail?: string }> {
  // Both files at once, each read by one git (a git per key and file cost ~7 ms each on every up).
  const [home, xdg] = await Promise.all(
    [`${account.home}/.gitconfig`, `${account.home}/.config/git/config`].map((file) => readUserKeys(file, account)),
  );
  // Per key, ~/.gitconfig before ~/.config/git/config, as git itself reads them.
  const user = identitySchema.shape.gitUser.safeParse(home?.get("user.name") ?? xdg?.get("user.name"));
  const email = identitySchema.shape.gitEmail.safeParse(home?.get("user.email") ?? xdg?.get("user.email"));
  return {
    ...(user.success && user.data !== undefined ? { gitUser: user.data } : {}),
    ...(email.success && email.data !== undefined ? { gitEmail: email.data } : {}),
  };
}

/** user.name and user.email as one git config file sets them (the last of each), read as the user; nothing where there is no file. */
async function readUserKeys(file: string, account: HostAccount): Promise<Map<string, string> | undefined> {
  // No file, no git to start (most hosts have one of the two at most).
  if ((await lstat(file).catch(() => undefined)) === undefined) return undefined;
  // As the user: their files are read with their rights, never root's. -z: a value may hold anything.
  const result = await runCommand("git", ["config", "--file", file, "-z", "--get-regexp", "^user\\.(name|email)$"], {
    uid: account.uid,
    gid: account.gid,
    cwd: "/",
    reject: false,
    timeoutMs: 5000,
    // Their git (on NixOS, in their profile or the system's), looked up as them.
    env: { PATH: userCommandPath(account) },
  }).catch(() => undefined);
  if (result?.exitCode !== 0) return undefined;
  const keys = new Map<string, string>();
  for (const entry of result.stdout.split("\0")) {
    const newline = entry.indexOf("\n");
    if (newline > 0 && entry.slice(newline + 1) !== "") keys.set(entry.slice(0, newline), entry.slice(newline + 1));
  }
  return keys;
}

import type { FileHandle } from "node:fs/promises";
import { lookupHostUser, type HostUser } from "../runtime/core/host-user.js";

/**
 * The user who ran `sudo forage-ctl init` ($SUDO_USER), when this is root and that user is on
 * this host and not root: they edit the config, so they own it, and they type the next commands
 * in their own shell, where sandbox commands need sudo. Undefined otherwise (a root login types
 * as root; a user without sudo types as themselves).
 * @example await sudoInvoker({ SUDO_USER: "alice" }, true) // { name: "alice", uid: 1000, gid: 1000, home: "/home/alice" }
 */
export async function sudoInvoker(
  env: NodeJS.ProcessEnv,
  isRoot: boolean,
  passwdFile?: string,
): Promise<HostUser | undefined> {
  const name = env.SUDO_USER;
  if (!isRoot || name === undefined || name === "" || name === "root") return undefined;
  const user = await lookupHostUser(name, passwdFile);
  return user === undefined || user.uid === 0 ? undefined : user;
}

/** Whether `sudo` was used (SUDO_USER names someone other than root), whether or not they are a host user. */
export function ranWithSudo(env: NodeJS.ProcessEnv, isRoot: boolean): boolean {
  return isRoot && env.SUDO_USER !== undefined && env.SUDO_USER !== "" && env.SUDO_USER !== "root";
}

/** Gives the open file to `owner` (by descriptor: no path is followed again after it was opened). */
export async function giveTo(handle: FileHandle, owner: HostUser | undefined): Promise<void> {
  if (owner !== undefined) await handle.chown(owner.uid, owner.gid);
}

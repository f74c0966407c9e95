import { readFile } from "node:fs/promises";

export interface HostUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/** Looks a user up in the host's /etc/passwd (no NSS modules: sandboxes are for local users). */
export async function lookupHostUser(name: string, passwdFile = "/etc/passwd"): Promise<HostUser | undefined> {
  return (await readPasswd(passwdFile)).find((user) => user.name === name);
}

/** The same, by uid: the first account with it (as getpwuid answers). */
export async function lookupHostUserById(uid: number, passwdFile = "/etc/passwd"): Promise<HostUser | undefined> {
  return (await readPasswd(passwdFile)).find((user) => user.uid === uid);
}

async function readPasswd(passwdFile: string): Promise<HostUser[]> {
  const users: HostUser[] = [];
  for (const line of (await readFile(passwdFile, "utf8")).split("\n")) {
    const [name, , uid, gid, , home] = line.split(":");
    if (name !== undefined && uid !== undefined && gid !== undefined && home !== undefined) {
      users.push({ name, uid: Number(uid), gid: Number(gid), home });
    }
  }
  return users;
}

/** A group's gid from the host's /etc/group, or undefined. */
export async function lookupGroupId(name: string, groupFile = "/etc/group"): Promise<number | undefined> {
  for (const line of (await readFile(groupFile, "utf8").catch(() => "")).split("\n")) {
    const [group, , gid] = line.split(":");
    if (group === name && gid !== undefined && /^\d+$/.test(gid)) return Number(gid);
  }
  return undefined;
}

/** A config path as a host path: "~/x" is under the configured user's home (the config allows it). */
export function expandHome(path: string, home: string): string {
  return path.startsWith("~/") ? `${home}${path.slice(1)}` : path;
}

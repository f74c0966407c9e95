import { createHash } from "node:crypto";
import { mkdir, readFile, rm } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { z } from "zod";
import { pathExists } from "../core/path-exists.js";
import { metadataPath, runtimePaths } from "../core/paths.js";
import { writeFileAtomic } from "../core/write-file-atomic.js";
import { withLock } from "../state/lock.js";
import { removeStandIns, type StandIn } from "./placeholders.js";

/**
 * The host-wide record of which sandboxes use which workspace folder, and the stand-ins `up` made
 * in it (`<dir>/<hash of the folder>.json`, root's). Host-wide for the reason slots are: sandboxes
 * of several state directories can share a folder. The stand-ins belong to the folder, not to a
 * sandbox: a stand-in's mount point removed on the host is unmounted in every container holding
 * it (the kernel detaches mounts on a dentry another namespace unlinks), so only the last sandbox
 * to leave removes them, and only those the record says were made.
 */
export const hostFoldersDir = "/run/forage/workspaces";

/** A sandbox of one state directory (absolute), as slot claims name it. */
export interface FolderUser {
  stateDir: string;
  sandbox: string;
}

const placeholderSchema = z.union([
  z.strictObject({ kind: z.literal("directory") }),
  z.strictObject({ kind: z.literal("file"), text: z.string() }),
]);
const recordSchema = z.strictObject({
  folder: z.string().startsWith("/").describe("the workspace folder's real path"),
  users: z
    .array(z.strictObject({ stateDir: z.string().startsWith("/"), sandbox: z.string().min(1) }))
    .describe("sandboxes that use it now"),
  standIns: z
    .array(z.strictObject({ path: z.string().min(1), placeholder: placeholderSchema }))
    .describe("mount points made in it, relative paths"),
});
type FolderRecord = z.infer<typeof recordSchema>;

/**
 * Adds `user` to each folder's users (before its stand-ins are looked at, so a sandbox leaving
 * meanwhile leaves them in place), and returns, by folder, the other sandboxes using it.
 */
export async function joinFolders(
  dir: string,
  user: FolderUser,
  folders: readonly string[],
): Promise<Map<string, FolderUser[]>> {
  return locked(dir, async () => {
    const others = new Map<string, FolderUser[]>();
    for (const folder of new Set(folders)) {
      const record = await readRecord(dir, folder);
      const live = await liveUsers(record.users.filter((other) => !same(other, user)));
      if (live.length > 0) others.set(folder, live);
      await writeRecord(dir, { ...record, users: [...live, user] });
    }
    return others;
  });
}

/** Records stand-ins made in `folder` (by a sandbox that joined it). */
export async function recordStandIns(dir: string, folder: string, made: readonly StandIn[]): Promise<void> {
  await locked(dir, async () => {
    const record = await readRecord(dir, folder);
    const known = new Set(record.standIns.map((standIn) => standIn.path));
    await writeRecord(dir, {
      ...record,
      standIns: [...record.standIns, ...made.filter((standIn) => !known.has(standIn.path))],
    });
  });
}

/**
 * Takes `user` off each folder; the last one out removes the folder's recorded stand-ins (as the
 * folder's owner) and the record. A user whose sandbox no longer exists counts as gone.
 */
export async function leaveFolders(
  dir: string,
  user: FolderUser,
  folders: readonly string[],
  owner: { uid: number; gid: number },
): Promise<void> {
  await locked(dir, async () => {
    for (const folder of new Set(folders)) {
      const record = await readRecord(dir, folder);
      const live = await liveUsers(record.users.filter((other) => !same(other, user)));
      if (live.length > 0) {
        await writeRecord(dir, { ...record, users: live });
        continue;
      }
      await removeStandIns(folder, record.standIns, owner);
      await rm(recordFile(dir, folder), { force: true });
    }
  });
}

/** The users whose sandbox still exists (a stopped one left at its stop; one gone without it left nothing to hold). */
async function liveUsers(users: readonly FolderUser[]): Promise<FolderUser[]> {
  const live: FolderUser[] = [];
  for (const user of users)
    if (await pathExists(metadataPath(runtimePaths(user.stateDir, {}), user.sandbox))) live.push(user);
  return live;
}

function same(a: FolderUser, b: FolderUser): boolean {
  return a.stateDir === b.stateDir && a.sandbox === b.sandbox;
}

/** The record of `folder`, or an empty one. One that cannot be read counts as empty: its stand-ins then stay. */
async function readRecord(dir: string, folder: string): Promise<FolderRecord> {
  const text = await readFile(recordFile(dir, folder), "utf8").catch(() => "");
  const parsed = recordSchema.safeParse(text === "" ? undefined : safeJson(text));
  return parsed.success && parsed.data.folder === folder ? parsed.data : { folder, users: [], standIns: [] };
}

async function writeRecord(dir: string, record: FolderRecord): Promise<void> {
  await writeFileAtomic(recordFile(dir, record.folder), `${JSON.stringify(record)}\n`, 0o600);
}

function recordFile(dir: string, folder: string): string {
  return join(dir, `${createHash("sha256").update(resolve(folder)).digest("hex").slice(0, 32)}.json`);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

async function locked<T>(dir: string, work: () => Promise<T>): Promise<T> {
  // The parent first, at 0755: users traverse /run/forage to reach the daemon's socket.
  await mkdir(dirname(dir), { recursive: true, mode: 0o755 });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  return withLock(join(dir, "lock"), work);
}

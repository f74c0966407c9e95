import { constants } from "node:fs";
import { chmod, lstat, mkdir, open, readdir, rm } from "node:fs/promises";
import { pathUnder } from "../core/names.js";
import { SandboxError } from "../core/errors.js";
import { issueList } from "../../generator/lib/issue-list.js";
import type { RuntimePaths } from "../core/paths.js";
import { writeFileAtomic } from "../core/write-file-atomic.js";
import { loginRecord, type LoginRecord } from "./login-record.js";

/** User and agent names become path segments: both are checked before they do. */
const segment = /^[a-z_][a-z0-9_-]{0,31}$|^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** Where the host keeps one user's login for one agent: `<state>/logins/<user>/<agent>.json`. */
export function loginPath(paths: RuntimePaths, user: string, agent: string): string {
  if (!segment.test(user) || !segment.test(agent) || agent.startsWith("."))
    throw new Error(`internal: bad login name ${user}/${agent}`);
  return pathUnder(pathUnder(paths.loginsDir, user), `${agent}.json`);
}

/**
 * Stores a login: root's, 0600, in directories only root can enter (0700), written whole or not
 * at all. It lives under the state directory, so it outlives reboots and every sandbox.
 */
export async function storeLogin(paths: RuntimePaths, user: string, agent: string, record: LoginRecord): Promise<void> {
  const file = loginPath(paths, user, agent);
  for (const dir of [paths.loginsDir, pathUnder(paths.loginsDir, user)]) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // An existing directory keeps its mode under mkdir: make sure it is root's alone.
    await chmod(dir, 0o700);
  }
  await writeFileAtomic(file, `${JSON.stringify(loginRecord.parse(record), null, 2)}\n`, 0o600);
}

/** A stored login, or undefined when there is none; a file that is not a login is an error that says where. */
export async function readLogin(paths: RuntimePaths, user: string, agent: string): Promise<LoginRecord | undefined> {
  const file = loginPath(paths, user, agent);
  let text: string;
  try {
    // Never a link (O_NOFOLLOW, in the open itself): the store is root's, and a link would read whatever it points at.
    const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      text = await handle.readFile("utf8");
    } finally {
      await handle.close();
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    if (code === "ELOOP")
      throw new SandboxError(`${file} is a symbolic link; remove it and set the login again`, "general");
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new SandboxError(
      `${file} is not a stored login (not JSON); set it again with forage-ctl auth set ${agent}`,
      "general",
    );
  }
  const parsed = loginRecord.safeParse(json);
  if (!parsed.success)
    throw new SandboxError(
      `${file} is not a stored login (${issueList(parsed.error.issues)}); set it again with forage-ctl auth set ${agent}`,
      "general",
    );
  return parsed.data;
}

/** Removes a stored login; true when there was one. */
export async function removeLogin(paths: RuntimePaths, user: string, agent: string): Promise<boolean> {
  const file = loginPath(paths, user, agent);
  const existed = await lstat(file).then(
    () => true,
    () => false,
  );
  await rm(file, { force: true });
  return existed;
}

/** The agents a user has logins stored for, sorted. */
export async function storedLoginAgents(paths: RuntimePaths, user: string): Promise<string[]> {
  const entries = await readdir(pathUnder(paths.loginsDir, user)).catch(() => [] as string[]);
  return entries
    .filter((entry) => entry.endsWith(".json"))
    .map((entry) => entry.slice(0, -".json".length))
    .sort();
}

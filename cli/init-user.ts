import { readFile } from "node:fs/promises";
import { unixUserName } from "../generator/config/schema/names.js";
import { lookupHostUser, lookupHostUserById } from "../runtime/core/host-user.js";
import { UserError } from "../runtime/core/errors.js";

/** Where `init` may learn who owns the user's workspaces, in the order it looks. */
export interface UserSources {
  /** --user */
  option: string | undefined;
  /** For $SUDO_USER (sudo sets it to the user who ran sudo). */
  env: NodeJS.ProcessEnv;
  /** This process's own user (os.userInfo()). */
  self: { uid: number; username: string };
  /** The audit login uid of the session ("4294967295" when unset); default /proc/self/loginuid. */
  loginUidFile?: string;
  passwdFile?: string;
  /** Asks on the terminal and resolves with the answer (undefined at end of input); absent without one. */
  ask?: ((question: string) => Promise<string | undefined>) | undefined;
}

/** The chosen user and where it came from (said after writing, so a wrong guess is noticed). */
export interface ChosenUser {
  name: string;
  from: "--user" | "$SUDO_USER" | "your user" | "your login session" | "your answer";
}

const unsetLoginUid = 4294967295;
const attempts = 3;
const question = "Host user who owns your workspaces (agents get its UID/GID; never root): ";
const howToFix = "pass --user NAME, the host user who owns your workspaces (agents get its UID/GID; never root)";

/**
 * The user `init` writes into the config: --user, else $SUDO_USER, else this process's user,
 * else the login session's user, skipping root each time (agents never run as root, and `up`
 * refuses a root `user`); else it asks on a terminal; else it refuses (exit 64).
 *
 * @example
 * await chooseInitUser({ option: undefined, env: { SUDO_USER: "alice" }, self: { uid: 0, username: "root" } })
 * // → { name: "alice", from: "$SUDO_USER" }
 */
export async function chooseInitUser(sources: UserSources): Promise<ChosenUser> {
  const passwd = sources.passwdFile ?? "/etc/passwd";
  if (sources.option !== undefined) {
    const problem = await problemWith(sources.option, passwd, false);
    if (problem !== undefined) throw new UserError(`--user: ${problem}`, "usage");
    return { name: sources.option, from: "--user" };
  }
  const sudoUser = sources.env.SUDO_USER;
  if (sudoUser !== undefined && sudoUser !== "" && !(await isRoot(sudoUser, passwd)))
    return checked(sudoUser, "$SUDO_USER", passwd);
  if (sources.self.uid !== 0) return checked(sources.self.username, "your user", passwd);
  const login = await loginUser(sources.loginUidFile ?? "/proc/self/loginuid", passwd);
  if (login !== undefined) return checked(login, "your login session", passwd);
  if (sources.ask !== undefined) return askForUser(sources.ask, passwd);
  throw new UserError(
    `init: cannot tell which host user owns your workspaces (no --user, no $SUDO_USER, no login session, no terminal to ask on): ${howToFix}`,
    "usage",
  );
}

/** Why `name` cannot be the config's user, or undefined. `mustExist`: for answers typed on this host. */
async function problemWith(name: string, passwd: string, mustExist: boolean): Promise<string | undefined> {
  // The scaffold is rendered without escaping, so every value is checked against the schema first.
  if (!unixUserName.safeParse(name).success) return `"${name}" is not a valid Unix user name`;
  if (await isRoot(name, passwd))
    return `"${name}" is root: agents never run as root; give the host user who owns your workspaces`;
  if (mustExist && (await lookupHostUser(name, passwd)) === undefined)
    return `there is no user "${name}" on this host (see ${passwd})`;
  return undefined;
}

async function checked(name: string, from: ChosenUser["from"], passwd: string): Promise<ChosenUser> {
  const problem = await problemWith(name, passwd, false);
  if (problem !== undefined) throw new UserError(`init: the user from ${from}: ${problem}; ${howToFix}`, "usage");
  return { name, from };
}

async function isRoot(name: string, passwd: string): Promise<boolean> {
  return name === "root" || (await lookupHostUser(name, passwd))?.uid === 0;
}

/** The session's login user (set by pam_loginuid at login, kept across sudo), unless unset or root. */
async function loginUser(loginUidFile: string, passwd: string): Promise<string | undefined> {
  const text = await readFile(loginUidFile, "utf8").catch((error: NodeJS.ErrnoException) => {
    // Kernels without audit support have no such file: no login session to learn from.
    if (error.code === "ENOENT") return "";
    throw error;
  });
  const uid = Number(text.trim());
  if (text.trim() === "" || !Number.isInteger(uid) || uid === unsetLoginUid || uid === 0) return undefined;
  const user = await lookupHostUserById(uid, passwd);
  return user === undefined || user.uid === 0 ? undefined : user.name;
}

async function askForUser(ask: (question: string) => Promise<string | undefined>, passwd: string): Promise<ChosenUser> {
  let prompt = question;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const answer = (await ask(prompt))?.trim();
    if (answer === undefined) throw new UserError(`init: no user given: ${howToFix}`, "usage");
    const problem = answer === "" ? "give a user name" : await problemWith(answer, passwd, true);
    if (problem === undefined) return { name: answer, from: "your answer" };
    prompt = `${problem}.\n${question}`;
  }
  throw new UserError(`init: no valid user after ${attempts} answers: ${howToFix}`, "usage");
}

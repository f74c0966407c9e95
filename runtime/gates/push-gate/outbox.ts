import { chmod, lchown, mkdir, rm, rmdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { pathUnder } from "../../core/names.js";
import { prepareSocketDirectory } from "../../core/private-socket.js";
import type { RuntimePaths } from "../../core/paths.js";
import { SandboxError } from "../../core/errors.js";
import { runCommand } from "../../core/run-command.js";
import { systemProgramDirs } from "../../core/user-command-path.js";
import { remotesConfigName } from "./sandbox-git-config.js";
import { lastWords, runUserGit, type GateUser } from "./user-git.js";

/** A sandbox's gate on the host: its directory, outbox repository, hook directory and socket. */
export interface OutboxLayout {
  dir: string;
  /** The bare repository git-receive-pack writes a push into (the user's: every git on it runs as them). */
  gitDir: string;
  /** root's: the hooks pre-receive and update, links to the relay (runtime/push-gate's end in native/forage-git-relay.c). */
  hooksDir: string;
  /** root's directory holding the gate's socket, bound read-only into the sandbox. */
  socketDir: string;
  socket: string;
  /** root's: the remotes config the sandbox's git includes, beside the socket (LiveRemotes writes it). */
  remotesConfig: string;
}

/** Pushes larger than this are refused by git-receive-pack itself (receive.maxInputSize). */
export const maxPushBytes = 512 * 1024 * 1024;

export function outboxLayout(paths: RuntimePaths, sandbox: string): OutboxLayout {
  const dir = pathUnder(paths.pushGateDir, sandbox);
  const socketDir = join(dir, "socket");
  return {
    dir,
    gitDir: join(dir, "outbox.git"),
    hooksDir: join(dir, "hooks"),
    socketDir,
    socket: join(socketDir, "gate.sock"),
    remotesConfig: join(socketDir, remotesConfigName),
  };
}

/**
 * Makes a sandbox's outbox afresh: a bare repository of the user's whose objects borrow from the
 * user's repository (`objectStores`, recorded at up: its refs are advertised to the pusher, so a
 * push sends only new objects), checking every object it receives, its only hooks root's. The
 * socket's directory is kept (made when missing): a running sandbox holds a bind of it, and a new
 * directory in its place would be one the sandbox never sees.
 */
export async function createOutbox(
  layout: OutboxLayout,
  user: GateUser,
  relay: string,
  objectStores: readonly string[],
): Promise<void> {
  await removeUsersOutbox(layout, user);
  await rm(layout.hooksDir, { recursive: true, force: true });
  await prepareGateSocketDir(layout);
  await chmod(layout.dir, 0o755);
  await mkdir(layout.hooksDir, { mode: 0o755 });
  // pre-receive checks the whole push; update asks for each ref, so git reports each ref's fate.
  for (const hook of ["pre-receive", "update"]) await symlink(relay, join(layout.hooksDir, hook));
  await mkdir(layout.gitDir, { mode: 0o700 });
  await lchown(layout.gitDir, user.uid, user.gid);
  const git = async (args: string[], doing: string): Promise<void> => {
    const result = await runUserGit(user, ["-c", "core.hooksPath=/dev/null", ...args], { GIT_DIR: layout.gitDir });
    if (result.exitCode !== 0) throw new SandboxError(`push gate: could not ${doing}: ${lastWords(result)}`, "vcs");
  };
  await git(["init", "--quiet", "--bare", layout.gitDir], "make the outbox repository");
  const settings: [string, string][] = [
    ["core.hooksPath", layout.hooksDir],
    ["receive.fsckObjects", "true"],
    ["receive.maxInputSize", String(maxPushBytes)],
    ["receive.advertisePushOptions", "false"],
    // An atomic push would report refs rejected that the gate had already pushed upstream.
    ["receive.advertiseAtomic", "false"],
    ["gc.auto", "0"],
  ];
  for (const [key, value] of settings) await git(["config", key, value], `set ${key} in the outbox`);
  if (objectStores.length > 0) {
    // Written as the user (tee, no shell): the outbox and everything in it is theirs.
    const alternates = join(layout.gitDir, "objects/info/alternates");
    const written = await runCommand("tee", ["--", alternates], {
      input: `${objectStores.join("\n")}\n`,
      stdout: "ignore",
      ...asOwner(user),
      reject: false,
    });
    if (written.exitCode !== 0)
      throw new SandboxError(
        `push gate: could not point the outbox at ${objectStores.join(", ")}: ${written.stderr}`,
        "vcs",
      );
  }
}

/**
 * The gate's directory and its socket's (root's, 0755; refused when anyone else could write to
 * it), a stale socket removed: what the sandbox's bind needs before its container starts.
 */
export async function prepareGateSocketDir(layout: OutboxLayout): Promise<void> {
  await mkdir(layout.dir, { recursive: true, mode: 0o755 });
  await prepareSocketDirectory(layout.socket);
}

/** Removes a sandbox's gate directory (at down): the user's outbox as the user, then root's own parts. */
export async function removeOutbox(layout: OutboxLayout, owner: { uid: number; gid: number }): Promise<void> {
  await removeUsersOutbox(layout, owner);
  for (const dir of [layout.hooksDir, layout.socketDir]) await rm(dir, { recursive: true, force: true });
  await rmdir(layout.dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
  });
}

/**
 * The outbox is the user's: root walking it recursively could be led by a directory swapped for a
 * link mid-walk into deleting elsewhere. Its contents go as the user (rm, argv, no shell); root
 * then removes only the emptied directory itself (in root's directory, where the user cannot).
 */
async function removeUsersOutbox(layout: OutboxLayout, owner: { uid: number; gid: number }): Promise<void> {
  await runCommand("rm", ["-rf", "--", layout.gitDir], { ...asOwner(owner), reject: false });
  await rmdir(layout.gitDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT")
      throw new SandboxError(
        `push gate: the outbox ${layout.gitDir} could not be emptied as its owner (${error.code ?? error.message})`,
        "vcs",
      );
  });
}

/** A small command as the outbox's owner: the system's programs, none of the daemon's environment, from "/". */
function asOwner(owner: { uid: number; gid: number }): {
  uid: number;
  gid: number;
  env: Record<string, string>;
  cwd: string;
} {
  return { uid: owner.uid, gid: owner.gid, env: { PATH: systemProgramDirs.join(":") }, cwd: "/" };
}

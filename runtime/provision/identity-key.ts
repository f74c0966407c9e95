import { chmod, chown, writeFile } from "node:fs/promises";
import { SandboxError } from "../core/errors.js";
import { openRegularFile } from "../core/open-regular-file.js";

/** Name of the identity key's copy in a sandbox's secrets directory (secret names cannot start with "."). */
export const identityKeyFile = ".ssh-identity";

/** Larger than any SSH private key; anything bigger is not one. */
const maxKeyBytes = 64 * 1024;

/**
 * Copies the agent's SSH identity key (agentIdentity.sshKeyPath / up --ssh-key-path) into the
 * sandbox's secrets directory, 0400 for the agent's uid. The file must belong to the agent's
 * uid (the host user): a path from a daemon client could otherwise name a root-only file, such
 * as the host's own SSH key. Only the path the root-owned config names may be owned by root.
 * The ownership is checked on the opened file (no symlink followed), so swapping the path
 * between a check and the copy gains nothing.
 */
export async function copyIdentityKey(
  source: string,
  target: string,
  owner: { uid: number; gid: number },
  configuredPath: string | undefined,
): Promise<void> {
  const refuse = (why: string): SandboxError => new SandboxError(`ssh identity key ${source} ${why}`, "usage");
  const { file, info } = await openRegularFile(source, refuse, "give the key file itself");
  try {
    const trustedRootFile = info.uid === 0 && source === configuredPath;
    if (info.uid !== owner.uid && !trustedRootFile)
      throw refuse(`is not owned by the sandbox's user (uid ${owner.uid})`);
    if (info.size > maxKeyBytes) throw refuse(`is larger than ${maxKeyBytes} bytes: not an SSH private key`);
    const key = await file.readFile();
    await writeFile(target, key, { mode: 0o400, flag: "wx" });
    key.fill(0);
    await chown(target, owner.uid, owner.gid);
    await chmod(target, 0o400);
  } finally {
    await file.close();
  }
}

import { chmod, chown, copyFile, mkdir, symlink, writeFile } from "node:fs/promises";
import { profileAssetPath } from "../../provision/assets.js";
import { identitySshConfig } from "../../provision/identity-ssh-config.js";
import { join } from "node:path";

/** What the generated /etc of a host-root sandbox says. */
export interface HostRootSpec {
  hostname: string;
  user: { name: string; uid: number; gid: number };
  workspacePath: string;
  /** Where the agent's SSH identity key is inside (written into its ~/.ssh/config), or null. */
  identityKey: string | null;
  /** Agents' launch settings: name → program and optional secret. */
  agents: {
    name: string;
    program: string;
    secretFile: string | null;
    envVar: string | null;
    envFile: string | null;
    promptFile: string | null;
  }[];
}

/** Top-level directories of the root; /usr (and /etc/ssl etc.) are bound read-only from the host. */
const directories = [
  "usr",
  "etc/forage/agents",
  "opt/forage/bin",
  "proc",
  "sys",
  "dev",
  "run",
  "tmp",
  "var/tmp",
  "root",
  "home",
  "mnt",
];
const usrLinks = ["bin", "sbin", "lib", "lib32", "lib64", "libx32"];

/**
 * Lays out a minimal root for a sandbox that runs on the host's /usr (no Nix needed): standard
 * directories, merged-/usr links, and a generated /etc with only the agent user and root. Written
 * into a fresh tmpfs, so nothing survives a stop: the root is ephemeral by construction.
 */
export async function buildHostRoot(root: string, spec: HostRootSpec): Promise<void> {
  await chmod(root, 0o755);
  for (const dir of directories) await mkdir(join(root, dir), { recursive: true, mode: 0o755 });
  await chmod(join(root, "tmp"), 0o1777);
  await chmod(join(root, "var/tmp"), 0o1777);
  await chmod(join(root, "root"), 0o700);
  for (const link of usrLinks) await symlink(`usr/${link}`, join(root, link));
  await makeHome(root, spec);
  await mkdir(join(root, spec.workspacePath.slice(1)), { recursive: true, mode: 0o755 });
  await writeEtc(root, spec);
  for (const agent of spec.agents) {
    await symlink("forage-agent", join(root, "opt/forage/bin", agent.name));
    const lines = [
      `program=${agent.program}`,
      `secret_file=${agent.secretFile ?? ""}`,
      `env_var=${agent.envVar ?? ""}`,
      `env_file=${agent.envFile ?? ""}`,
      `prompt_file=${agent.promptFile ?? ""}`,
    ];
    await writeFile(join(root, "etc/forage/agents", agent.name), `${lines.join("\n")}\n`, { mode: 0o644 });
  }
}

async function makeHome(root: string, spec: HostRootSpec): Promise<void> {
  const home = join(root, "home", spec.user.name);
  await mkdir(home, { mode: 0o700 });
  await chown(home, spec.user.uid, spec.user.gid);
  if (spec.identityKey !== null) await writeSshConfig(home, spec.identityKey, spec.user);
}

/** The agent's ~/.ssh/config for its identity key, owned by the agent. */
async function writeSshConfig(home: string, identityKey: string, owner: { uid: number; gid: number }): Promise<void> {
  const dir = join(home, ".ssh");
  // Recursive: a claimed member's may be there already (installSsh's authorized_keys).
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const config = join(dir, "config");
  await writeFile(config, identitySshConfig(identityKey), { mode: 0o600 });
  for (const path of [dir, config]) await chown(path, owner.uid, owner.gid);
}

/**
 * What of a laid-out root is a sandbox's own, written again for the sandbox that claims a warm
 * pool's member (made under the member's name, without secrets): its hostname in /etc, and the
 * agent's ~/.ssh/config for its identity key. The member has run nothing but its placeholder,
 * so the files are as buildHostRoot left them.
 */
export async function claimHostRoot(
  root: string,
  spec: Pick<HostRootSpec, "hostname" | "identityKey" | "user">,
): Promise<void> {
  for (const [file, text] of Object.entries(hostnameFiles(spec.hostname)))
    await writeFile(join(root, "etc", file), text, { mode: 0o644 });
  if (spec.identityKey !== null) await writeSshConfig(join(root, "home", spec.user.name), spec.identityKey, spec.user);
}

function hostnameFiles(hostname: string): Record<string, string> {
  return { hostname: `${hostname}\n`, hosts: `127.0.0.1 localhost\n::1 localhost\n127.0.1.1 ${hostname}\n` };
}

async function writeEtc(root: string, spec: HostRootSpec): Promise<void> {
  const { name, uid, gid } = spec.user;
  const files: Record<string, string> = {
    // `sshd` is OpenSSH's privilege-separation user; it owns nothing and cannot log in.
    passwd: `root:x:0:0:root:/root:/bin/bash\n${name}:x:${uid}:${gid}:Forage agent:/home/${name}:/bin/bash\nsshd:x:101:65534::/run/sshd:/usr/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
    group: `root:x:0:\n${name}:x:${gid}:\nnogroup:x:65534:\n`,
    // No password for anyone; the agent's is "*" (not "!") so sshd accepts its keys.
    shadow: `root:!:1::::::\n${name}:*:1::::::\n`,
    ...hostnameFiles(spec.hostname),
    "nsswitch.conf": "passwd: files\ngroup: files\nshadow: files\nhosts: files dns\n",
  };
  for (const [file, text] of Object.entries(files)) {
    await writeFile(join(root, "etc", file), text, { mode: file === "shadow" ? 0o600 : 0o644 });
  }
  // Login shells (ssh, bash -l) get the agent launchers on PATH from a constant shipped file.
  await copyFile(profileAssetPath(), join(root, "etc/profile"));
}

import type { Bind } from "../core/bind.js";
import { chmod, chown, copyFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCommand } from "../core/run-command.js";
import { metadataPath, type RuntimePaths } from "../core/paths.js";
import type { SandboxMetadata } from "../state/metadata.js";

/** Where a sandbox's SSH host key lives on the host: generated once at up, kept across resets. */
function hostKeyDir(paths: RuntimePaths, name: string): string {
  return metadataPath(paths, name).replace(/\.json$/, ".ssh");
}

/** Generates the sandbox's host key (once) and returns its public key line. */
export async function ensureHostKey(paths: RuntimePaths, name: string): Promise<string> {
  const dir = hostKeyDir(paths, name);
  const key = join(dir, "ssh_host_ed25519_key");
  const existing = await readFile(`${key}.pub`, "utf8").catch(() => undefined);
  if (existing !== undefined) return existing.trim();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await runCommand("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", `forage-${name}`, "-f", key]);
  return (await readFile(`${key}.pub`, "utf8")).trim();
}

/** Forgets a removed sandbox's host key (and the identity ssh config a NixOS sandbox had bound). */
export async function removeHostKey(paths: RuntimePaths, name: string): Promise<void> {
  await rm(hostKeyDir(paths, name), { recursive: true, force: true });
  await rm(metadataPath(paths, name).replace(/\.json$/, ".ssh_config"), { force: true });
}

/** The pinned public host key of a sandbox, or null when it has none. */
export async function pinnedHostKey(paths: RuntimePaths, name: string): Promise<string | null> {
  const line = await readFile(join(hostKeyDir(paths, name), "ssh_host_ed25519_key.pub"), "utf8").catch(() => undefined);
  return line === undefined ? null : line.trim().split(/\s+/).slice(0, 2).join(" ");
}

/**
 * Puts sshd's files into a fresh root: the pinned host key, a keys-only configuration that lets
 * in the agent user only, and the agent's authorized keys.
 */
export async function installSsh(
  paths: RuntimePaths,
  root: string,
  metadata: SandboxMetadata,
  user: string,
): Promise<void> {
  const source = hostKeyDir(paths, metadata.name);
  const etc = join(root, "etc/ssh");
  await mkdir(etc, { recursive: true, mode: 0o755 });
  await copyFile(join(source, "ssh_host_ed25519_key"), join(etc, "ssh_host_ed25519_key"));
  await chmod(join(etc, "ssh_host_ed25519_key"), 0o600);
  const config = [
    "Port 22",
    "HostKey /etc/ssh/ssh_host_ed25519_key",
    "PasswordAuthentication no",
    "KbdInteractiveAuthentication no",
    "PermitRootLogin no",
    `AllowUsers ${user}`,
    "UsePAM no",
    "PidFile /run/sshd.pid",
    "AuthorizedKeysFile .ssh/authorized_keys",
    "X11Forwarding no",
    "AllowAgentForwarding no",
    "PermitTunnel no",
  ];
  await writeFile(join(etc, "sshd_config"), `${config.join("\n")}\n`, { mode: 0o644 });
  const dotSsh = join(root, "home", user, ".ssh");
  await mkdir(dotSsh, { recursive: true, mode: 0o700 });
  await writeFile(join(dotSsh, "authorized_keys"), metadata.authorizedKeys.map((k) => `${k}\n`).join(""), {
    mode: 0o600,
  });
  for (const path of [dotSsh, join(dotSsh, "authorized_keys")]) await chown(path, metadata.uid, metadata.gid);
}

/**
 * For a NixOS system, which runs its own sshd: the pinned host key at the path sshd uses (so it
 * generates none) and the sandbox's authorized keys at the agent's ~/.ssh/authorized_keys (one of
 * NixOS's AuthorizedKeysFile entries), both read-only from the host.
 */
export async function sshBindsForSystem(paths: RuntimePaths, metadata: SandboxMetadata, user: string): Promise<Bind[]> {
  const dir = hostKeyDir(paths, metadata.name);
  const authorizedKeys = join(dir, "authorized_keys");
  await writeFile(authorizedKeys, metadata.authorizedKeys.map((k) => `${k}\n`).join(""), { mode: 0o644 });
  return [
    { source: join(dir, "ssh_host_ed25519_key"), target: "/etc/ssh/ssh_host_ed25519_key", readOnly: true },
    { source: join(dir, "ssh_host_ed25519_key.pub"), target: "/etc/ssh/ssh_host_ed25519_key.pub", readOnly: true },
    { source: authorizedKeys, target: `/home/${user}/.ssh/authorized_keys`, readOnly: true },
  ];
}

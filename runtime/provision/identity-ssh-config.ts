import { writeFile } from "node:fs/promises";
import { metadataPath, type RuntimePaths } from "../core/paths.js";

/**
 * The agent's ~/.ssh/config when it has an identity key: git and ssh use that key and only it.
 * Host keys are learnt on first use (the root is ephemeral, so nothing persists past a reset).
 */
export function identitySshConfig(identityKey: string): string {
  const lines = [
    "# Written by forage-ctl: the agent's identity key (read-only, copied from the host).",
    "Host *",
    `  IdentityFile ${identityKey}`,
    "  IdentitiesOnly yes",
    "  StrictHostKeyChecking accept-new",
  ];
  return `${lines.join("\n")}\n`;
}

/**
 * For NixOS runtimes, whose home directories the system makes: the same config as a host file
 * (root's, 0644 — ssh accepts a config owned by root) to bind read-only at ~/.ssh/config.
 */
export async function identitySshConfigFile(
  paths: RuntimePaths,
  sandbox: string,
  identityKey: string,
): Promise<string> {
  const file = metadataPath(paths, sandbox).replace(/\.json$/, ".ssh_config");
  await writeFile(file, identitySshConfig(identityKey), { mode: 0o644 });
  return file;
}

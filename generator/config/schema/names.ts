import { z } from "zod";
import { templateNamePattern, templateNameSource } from "../../lib/template-name.js";

/**
 * Name and path primitives shared by the schema. Each carries its limit and the fix in its error
 * message, because these messages are what a user reads next to `file:line:col`.
 */

export { templateNamePattern, templateNameSource };

/** Template and agent names become Nix attribute names, file names and wrapper binary names. */
export const templateName = z.string().regex(templateNamePattern, {
  error: "must be 1-32 characters of a-z, 0-9 and '-', starting with a letter (e.g. \"claude-restricted\")",
});

/** Agent names name the wrapper binary on the agent's PATH and its tmux window. */
export const agentName = templateName;

/** Secret names become file names under /run/secrets (reference rule). */
export const secretName = z.string().regex(/^[a-zA-Z][a-zA-Z0-9._-]{0,63}$/, {
  error: "must start with a letter and use only letters, digits, '.', '_' and '-' (at most 64 characters)",
});

/** Names of environment variables a wrapper exports. */
export const envVarName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, {
  error: "must be a shell variable name: letters, digits and '_', not starting with a digit",
});

/** Unix user names (containerUsername, host user). */
export const unixUserName = z.string().regex(/^[a-z_][a-z0-9_-]{0,31}$/, {
  error: "must be a Unix user name: 1-32 characters of a-z, 0-9, '_' and '-', starting with a letter or '_'",
});

/** VCS workspace, branch and snapshot names (reference rule). */
export const vcsName = z
  .string()
  .regex(/^[a-zA-Z0-9][a-zA-Z0-9._/-]{0,127}$/, {
    error:
      "must start with a letter or digit and use only letters, digits, '.', '_', '/' and '-' (at most 128 characters)",
  })
  .refine((name) => !name.includes("..") && !name.endsWith("/") && !name.endsWith(".lock"), {
    error: "must not contain '..', end with '/' or end with '.lock' (git refuses such names)",
  });

/** Linux interface names are limited to 15 bytes by the kernel (IFNAMSIZ - 1). */
export const interfaceName = z.string().regex(/^[A-Za-z0-9_.-]{1,15}$/, {
  error: "must be a network interface name: 1-15 characters of letters, digits, '_', '.' and '-'",
});

/** An absolute, normalised path with no `..` segments, so it cannot escape a base directory. */
export const absolutePath = z.string().min(1, { error: "must not be empty" }).refine(isCleanAbsolutePath, {
  error: "must be an absolute path without '.', '..', '//' or a trailing '/' (e.g. \"/var/lib/forage\")",
});

/** A host path that may start with `~/` (expanded at run time to the configured user's home). */
export const hostPath = z
  .string()
  .min(1, { error: "must not be empty" })
  .refine((p) => isCleanAbsolutePath(p.startsWith("~/") ? p.slice(1) : p), {
    error: "must be an absolute path or start with '~/', without '.', '..', '//' or a trailing '/'",
  });

export function isCleanAbsolutePath(path: string): boolean {
  if (!path.startsWith("/")) return false;
  if (path === "/") return true;
  if (path.endsWith("/") || path.includes("\0") || path.includes("\n")) return false;
  return path
    .slice(1)
    .split("/")
    .every((segment) => segment !== "" && segment !== "." && segment !== "..");
}

const attributeSegment = "[A-Za-z_][A-Za-z0-9_'-]*";

/**
 * A package given as an attribute path of the host's nixpkgs (`"ripgrep"`,
 * `"python3Packages.black"`). It is emitted as the real reference `pkgs.python3Packages.black`, so
 * overlays and custom derivations are kept (the reference re-resolved packages by pname).
 */
export const packageRef = z
  .string()
  .regex(new RegExp(`^${attributeSegment}(\\.${attributeSegment})*$`), {
    error: 'must be a nixpkgs attribute path such as "ripgrep" or "python3Packages.black"',
  })
  // In the NixOS module the same option holds a real derivation (types.package).
  .meta({
    nixType: "package",
    description: 'A nixpkgs attribute path, e.g. "claude-code" or "python3Packages.black".',
  });

const sshKeyTypes = [
  "ssh-ed25519",
  "ssh-rsa",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
  "sk-ssh-ed25519@openssh.com",
  "sk-ecdsa-sha2-nistp256@openssh.com",
];

/** An OpenSSH public key line; the key type must be one OpenSSH knows (reference rule). */
export const sshPublicKey = z.string().refine(
  (key) => {
    const [type, body, ...rest] = key.trim().split(/\s+/);
    return (
      type !== undefined &&
      sshKeyTypes.includes(type) &&
      body !== undefined &&
      /^[A-Za-z0-9+/]+={0,3}$/.test(body) &&
      !key.includes("\n") &&
      rest.join(" ").length <= 256
    );
  },
  { error: `must be an OpenSSH public key line starting with one of: ${sshKeyTypes.join(", ")}` },
);

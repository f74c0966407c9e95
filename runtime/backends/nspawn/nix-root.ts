import { access, constants, mkdir, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathUnder } from "../../core/names.js";
import { SandboxError } from "../../core/errors.js";

/**
 * The template's prebuilt NixOS system (`/etc/forage/systems/<template>`, which the NixOS module
 * links to the closure it built), resolved to its store path; undefined when there is none.
 */
export async function findSystem(systemsDir: string, template: string): Promise<string | undefined> {
  const system = await realpath(pathUnder(systemsDir, template)).catch(() => undefined);
  if (system === undefined || !system.startsWith("/nix/store/")) return undefined;
  return (await access(join(system, "init"), constants.X_OK).then(
    () => true,
    () => false,
  ))
    ? system
    : undefined;
}

/** Like findSystem, but a missing system is an error that says how to get one. */
export async function requireSystem(systemsDir: string, template: string): Promise<string> {
  const system = await findSystem(systemsDir, template);
  if (system === undefined) {
    throw new SandboxError(
      `template "${template}" has no prebuilt NixOS system at ${join(systemsDir, template)} (a link into /nix/store with an init): ` +
        "declare it in services.forage.templates and rebuild, or use --runtime nspawn (the host's /usr)",
      "container",
    );
  }
  return system;
}

/**
 * Lays out an empty root for booting a NixOS system: the system's init builds /etc and
 * /run/current-system itself. systemd-nspawn wants an os-release and a /usr to accept the
 * directory as an OS tree; /nix/store is bound read-only over the empty mount point.
 */
export async function prepareNixRoot(root: string): Promise<void> {
  for (const dir of ["etc", "usr", "nix/store", "var/lib", "root"])
    await mkdir(join(root, dir), { recursive: true, mode: dir === "root" ? 0o700 : 0o755 });
  await writeFile(join(root, "etc/os-release"), "");
  await writeFile(join(root, "etc/machine-id"), "");
}

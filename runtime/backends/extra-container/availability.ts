import { findExecutable } from "../../core/find-executable.js";
import type { RuntimePaths } from "../../core/paths.js";
import { pathExists } from "../../core/path-exists.js";

const searchPath = (process.env.PATH ?? "").split(":").filter((dir) => dir.startsWith("/"));

/**
 * Why the extra-container runtime cannot run (a template on) this host, or undefined when it
 * can: it needs the extra-container tool, systemd as the host's init, and the generated
 * container definitions the NixOS module publishes.
 */
export async function extraContainerUnavailable(paths: RuntimePaths, template?: string): Promise<string | undefined> {
  if ((await findExecutable(["extra-container"], [...searchPath, "/run/current-system/sw/bin"])) === undefined)
    return "extra-container is not installed (NixOS: add pkgs.extra-container or its flake)";
  if (!(await pathExists("/run/systemd/system"))) return "systemd is not this host's init (container@ units need it)";
  const file = template === undefined ? paths.generatedDir : `${paths.generatedDir}/containers/${template}.nix`;
  if (!(await pathExists(file)))
    return `${file} does not exist (set services.forage.generated, or run forage-ctl generate and point FORAGE_GENERATED_DIR at it)`;
  return undefined;
}

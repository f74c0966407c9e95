import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../generator/config/load-config.js";
import { resolveModel } from "../../generator/model/resolve.js";
import type { RuntimeContext } from "../../runtime/core/context.js";
import { runtimePaths } from "../../runtime/core/paths.js";

/** A config with one template, "basic", whose agent is a shell: enough for state written by hand. */
export const basicConfig =
  "user: nobody\ntemplates:\n  basic:\n    agents: { sh: { package: bash, executable: bash } }\n";

/**
 * A runtime context of its own under `dir` for a test that writes sandbox state by hand: the
 * config `configYaml` (as `dir`/forage.yaml, loaded and resolved as forage-ctl does), and state,
 * run and secrets directories in `dir`.
 */
export async function configContext(dir: string, configYaml: string): Promise<RuntimeContext> {
  const config = join(dir, "forage.yaml");
  writeFileSync(config, configYaml);
  const paths = runtimePaths(join(dir, "state"), {
    FORAGE_RUN_DIR: join(dir, "run"),
    FORAGE_SECRETS_DIR: join(dir, "secrets"),
  });
  return { settings: resolveModel((await loadConfig(config)).config, config), paths, warn: () => undefined };
}

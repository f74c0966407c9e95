// A bench's own sandbox state, apart from anything the machine runs: state, run and secrets
// directories in a fresh temporary directory (through the variables every command reads), the
// bench's config there, a workspace the agent's uid owns, and the runtime context from that config.
import { chmodSync, chownSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RuntimeContext } from "../runtime/core/context.js";
import { runtimePaths } from "../runtime/core/paths.js";
import { loadSettings } from "../runtime/settings/load-settings.js";
import { settingsFile } from "../runtime/settings/settings-file.js";

export interface BenchSandboxes {
  /** The temporary directory holding it all: the bench removes it when done. */
  dir: string;
  workspace: string;
  context: RuntimeContext;
}

/** `prefix` names the temporary directory; `configYaml` is the bench's forage.yaml (user nobody, uid 65534). */
export async function benchSandboxes(prefix: string, configYaml: string): Promise<BenchSandboxes> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o711);
  Object.assign(process.env, {
    FORAGE_STATE_DIR: join(dir, "state"),
    FORAGE_RUN_DIR: join(dir, "run"),
    FORAGE_SECRETS_DIR: join(dir, "secrets"),
  });
  const config = join(dir, "forage.yaml");
  writeFileSync(config, configYaml);
  const workspace = join(dir, "ws");
  mkdirSync(workspace);
  chownSync(workspace, 65534, 65534);
  const context: RuntimeContext = {
    settings: (await loadSettings(await settingsFile(config))).settings,
    paths: runtimePaths("/unused"),
    warn: () => undefined,
  };
  return { dir, workspace, context };
}

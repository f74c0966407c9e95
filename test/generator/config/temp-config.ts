import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, expect } from "vitest";
import { ConfigError, formatDiagnostic, type Diagnostic } from "../../../generator/config/diagnostic.js";
import { resolveModel } from "../../../generator/model/resolve.js";
import { loadConfig, type LoadedConfig } from "../../../generator/config/load-config.js";

export const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));

/** A temp directory config files are written into; `cleanup` removes it. */
export interface TempConfigDir {
  dir: string;
  write(name: string, text: string): Promise<string>;
  cleanup(): Promise<void>;
}

export async function tempConfigDir(): Promise<TempConfigDir> {
  const dir = await mkdtemp(join(tmpdir(), "forage-config-test-"));
  return {
    dir,
    async write(name, text) {
      await writeFile(join(dir, name), text);
      return join(dir, name);
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Loads `name` from `dir` (so diagnostics name the file as `name`) and returns the ConfigError it throws. */
export async function configErrorOf(name: string, dir: string): Promise<ConfigError> {
  let result: LoadedConfig | undefined;
  try {
    result = await loadConfig(name, dir);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error(`expected ${name} to be rejected, but it loaded: ${JSON.stringify(result.config)}`);
}

/** `file:line:col` of a diagnostic, or just `file` when it has no position. */
export function where(d: Diagnostic): string {
  return d.line === undefined ? d.file : `${d.file}:${d.line}:${d.column ?? "?"}`;
}

/**
 * A YAML config's problems and its loaded model, for tests that write many small configs: each
 * test gets a temp directory of its own, and every config starts with `head`.
 */
export function configProbe(head: string) {
  let temp: TempConfigDir;
  beforeEach(async () => {
    temp = await tempConfigDir();
  });
  afterEach(async () => {
    await temp.cleanup();
  });
  const shown = (d: Diagnostic): string => formatDiagnostic(d).replace(/^forage\.yaml:/, "");
  return {
    /** The file's problems as `line:col: path: message`, file name left out. */
    async problems(yaml: string): Promise<string[]> {
      await temp.write("forage.yaml", head + yaml);
      return (await configErrorOf("forage.yaml", temp.dir)).diagnostics.map(shown);
    },
    /** The loaded config, its model and notes (as `line:col: path: note: message`). */
    async load(yaml: string) {
      await temp.write("forage.yaml", head + yaml);
      const loaded = await loadConfig("forage.yaml", temp.dir);
      return { ...loaded, model: resolveModel(loaded.config, loaded.file), notes: loaded.notes.map(shown) };
    },
  };
}

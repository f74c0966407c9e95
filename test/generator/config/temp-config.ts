import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { ConfigError, type Diagnostic } from "../../../generator/config/diagnostic.js";
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

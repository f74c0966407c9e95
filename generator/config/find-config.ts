import { stat } from "node:fs/promises";
import { join } from "node:path";

/** Config file names looked for in the current directory, in order. */
export const configFileNames = ["forage.config.ts", "forage.yaml", "forage.json"] as const;

/**
 * The first of configFileNames present in `cwd` as a file, else undefined. Not a directory: a
 * sandbox guards a missing config name in its workspace with an empty directory of that name.
 */
export async function findConfig(cwd = process.cwd()): Promise<string | undefined> {
  for (const name of configFileNames) {
    if ((await stat(join(cwd, name)).catch(() => undefined))?.isFile() === true) return name;
  }
  return undefined;
}

import { access } from "node:fs/promises";
import { join } from "node:path";

/** Config file names looked for in the current directory, in order. */
export const configFileNames = ["forage.config.ts", "forage.yaml", "forage.json"] as const;

/** The first of configFileNames present in `cwd`, else undefined. */
export async function findConfig(cwd = process.cwd()): Promise<string | undefined> {
  for (const name of configFileNames) {
    try {
      await access(join(cwd, name));
      return name;
    } catch {
      // not here; try the next name
    }
  }
  return undefined;
}

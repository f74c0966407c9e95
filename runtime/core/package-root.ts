import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The directory holding forage's package.json, found by walking up from this file, so paths work
 * the same from the TypeScript sources (tests) and from the compiled dist/ (the installed CLI).
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error("internal: forage's package.json not found above " + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}

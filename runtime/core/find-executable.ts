import { access, constants } from "node:fs/promises";

/** The first `dir/name` that is executable, trying each name in every directory in order. */
export async function findExecutable(names: readonly string[], dirs: readonly string[]): Promise<string | undefined> {
  for (const name of names) {
    for (const dir of dirs) {
      try {
        await access(`${dir}/${name}`, constants.X_OK);
        return `${dir}/${name}`;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}

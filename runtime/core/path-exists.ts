import { access } from "node:fs/promises";

/** True when `path` can be reached (access(2), links followed); false for any error. */
export function pathExists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

import { chown, lchown, mkdir, symlink, writeFile } from "node:fs/promises";
import { pathUnder } from "../core/names.js";

/** The secrets dir's tree copied into the agent's home at each start: `<secrets>/<sandbox>/_home/`. */
export const homeSeedName = "_home";

/** What goes into the agent's home, by home-relative path: files (stand-in logins) and links (to the read-only context). */
export interface HomeSeed {
  files: Record<string, string>;
  links: Record<string, string>;
}

/**
 * Writes the home seed under a sandbox's secrets dir: directories 0700, files 0600 and links,
 * all the agent's (its copies keep these modes). Nothing, and false, when there is nothing to seed.
 */
export async function writeHomeSeed(
  secretsDir: string,
  seed: HomeSeed,
  owner: { uid: number; gid: number },
): Promise<boolean> {
  const entries = [
    ...Object.entries(seed.files).map(([path, text]) => ({ path, text })),
    ...Object.entries(seed.links).map(([path, target]) => ({ path, target })),
  ];
  if (entries.length === 0) return false;
  const root = pathUnder(secretsDir, homeSeedName);
  for (const entry of entries.sort((a, b) => (a.path < b.path ? -1 : 1))) {
    const segments = entry.path.split("/");
    let current = root;
    for (const segment of ["", ...segments.slice(0, -1)]) {
      current = segment === "" ? current : pathUnder(current, segment);
      const made = await mkdir(current, { mode: 0o700 }).then(
        () => true,
        () => false,
      );
      if (made) await chown(current, owner.uid, owner.gid);
    }
    const target = pathUnder(current, segments.at(-1) ?? "");
    if ("text" in entry) {
      await writeFile(target, entry.text, { mode: 0o600, flag: "wx" });
      await chown(target, owner.uid, owner.gid);
    } else {
      await symlink(entry.target, target);
      await lchown(target, owner.uid, owner.gid);
    }
  }
  return true;
}

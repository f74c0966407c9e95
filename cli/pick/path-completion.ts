import { readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";

/** A path as typed made absolute: `~` is the home directory, anything relative is under `cwd`. */
export function expandPath(typed: string, cwd: string, home = homedir()): string {
  if (typed === "~" || typed.startsWith("~/")) return resolve(home, `.${typed.slice(1)}`);
  return resolve(cwd, typed);
}

/** Tab's answer: the text completed as far as it is unambiguous, and the directories it could still become. */
export interface Completion {
  value: string;
  candidates: string[];
}

/**
 * Completes the last part of a typed path to the directories that start with it, as a shell's
 * Tab does: one match is completed with a trailing `/`, several to their longest common start.
 * Hidden directories are offered only when the part starts with a dot. Files are never offered.
 *
 * @example completeDirectory("~/sr", "/", "/home/al") // → { value: "~/src/", candidates: ["src"] }
 */
export function completeDirectory(typed: string, cwd: string, home = homedir()): Completion {
  const cut = typed.lastIndexOf("/") + 1;
  const [head, part] = [typed.slice(0, cut), typed.slice(cut)];
  const parent = head === "" ? cwd : expandPath(head, cwd, home);
  const candidates = subdirectories(parent)
    .filter((name) => name.startsWith(part) && (part.startsWith(".") || !name.startsWith(".")))
    .sort();
  const [only] = candidates;
  if (only === undefined) return { value: typed, candidates };
  if (candidates.length === 1) return { value: `${head}${only}/`, candidates };
  return { value: head + commonStart(candidates), candidates };
}

/** The directories in `dir` (links to directories too), or none when it cannot be read. */
function subdirectories(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      if (entry.isDirectory()) return [entry.name];
      if (!entry.isSymbolicLink()) return [];
      return isDirectory(resolve(dir, entry.name)) ? [entry.name] : [];
    });
  } catch {
    return [];
  }
}

/** True when `path` is a directory (following links). */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function commonStart(names: readonly string[]): string {
  let start = names[0] ?? "";
  for (const name of names) while (!name.startsWith(start)) start = start.slice(0, -1);
  return start;
}

import { lstat, readlink } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import type { Placeholder } from "../core/bind.js";
import type { Guard } from "./guarded-paths.js";

/** A place in one of a sandbox's writable workspaces: `root` indexes the roots given, `path` is relative to it. */
export interface Place {
  root: number;
  path: string;
}

/** What must be held for a guard, at one place. */
export type GuardStep =
  /** A symbolic link on the way (or the guarded name itself): bound onto itself, so it cannot be replaced. */
  | (Place & { state: "link" })
  /** What the guard names (or a file where a directory is needed): bound onto itself read-only. */
  | (Place & { state: "present" })
  /** The first missing component: a stand-in goes there (a directory when the guard lies below it). */
  | (Place & { state: "absent"; placeholder: Placeholder })
  /** The guard resolves to a workspace itself, or above one: nothing short of a read-only workspace holds it. */
  | (Place & { state: "unholdable" });

const emptyDir: Placeholder = { kind: "directory" };
/** As the kernel's limit (ELOOP after 40 links): past it no tool resolves the name either. */
const maxLinks = 40;

/**
 * Where `guard` leads from workspace `start`, as the host's tools resolve it (which is what
 * matters: they are what the agent aims at): component by component from that workspace's real
 * path, following symbolic links wherever they point. Every step that lies in one of `roots` (the
 * sandbox's writable workspaces, real paths) must be held: each link on the way (the agent could
 * replace it), and the end, present or absent. A link out of every workspace ends nothing: the
 * walk goes on, as the host's git would, and a place it reaches in a workspace again is held there.
 * `.git -> realgit` gives [link .git, present realgit/config]; `.git -> ../gitdirs/x.git` gives
 * [link .git] (the agent cannot reach ../gitdirs).
 */
export async function resolveGuard(roots: readonly string[], start: number, guard: Guard): Promise<GuardStep[]> {
  const steps: GuardStep[] = [];
  let current = roots[start] ?? "/";
  let remaining = guard.path.split("/");
  let links = 0;
  while (remaining.length > 0) {
    const [part = "", ...rest] = remaining;
    remaining = rest;
    if (part === "" || part === ".") continue;
    if (part === "..") {
      current = dirname(current);
      continue;
    }
    const next = join(current, part);
    const place = locate(roots, next);
    const info = await lstat(next).catch(() => undefined);
    if (info === undefined) {
      if (place !== undefined && guard.placeholder !== null)
        steps.push({ ...place, state: "absent", placeholder: remaining.length === 0 ? guard.placeholder : emptyDir });
      return steps;
    }
    if (info.isSymbolicLink()) {
      if (place !== undefined) steps.push({ ...place, state: "link" });
      if (++links > maxLinks) return steps;
      const text = await readlink(next);
      if (text.startsWith("/")) current = "/";
      remaining = [...text.split("/"), ...remaining];
      continue;
    }
    if (info.isDirectory() && remaining.length > 0) {
      current = next;
      continue;
    }
    // The end, or a file where a directory is needed (held read-only, it cannot become one).
    if (place !== undefined) steps.push({ ...place, state: "present" });
    return steps;
  }
  // The walk ended on a directory reached through "..": a workspace itself, or above one.
  const place = locate(roots, current) ?? enclosing(roots, current);
  if (place !== undefined)
    steps.push({ ...place, state: place.path === "" || place.path.startsWith("..") ? "unholdable" : "present" });
  return steps;
}

/** The deepest root `path` lies in (below it: a root's own path is no place in it), or undefined. */
function locate(roots: readonly string[], path: string): Place | undefined {
  let found: Place | undefined;
  for (const [root, real] of roots.entries()) {
    const rel = relative(real, path);
    if (rel === "" || rel.startsWith("..") || rel.startsWith("/")) continue;
    if (found === undefined || rel.length < found.path.length) found = { root, path: rel };
  }
  return found;
}

/** A root that `path` is, or holds: the walk ended on a workspace or above it. */
function enclosing(roots: readonly string[], path: string): Place | undefined {
  const root = roots.findIndex((real) => real === path || !relative(path, real).startsWith(".."));
  return root === -1 ? undefined : { root, path: relative(roots[root] ?? "/", path) };
}

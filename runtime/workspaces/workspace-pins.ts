import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { Pin, Placeholder } from "../core/bind.js";
import { SandboxError } from "../core/errors.js";
import { resolveGuard, type GuardStep } from "./guard-resolution.js";
import { jjLayout, workspaceGuards } from "./guarded-paths.js";
import { makeMountPoints, type StandIn } from "./placeholders.js";

/** One writable workspace of a sandbox: its real host path, and the protected paths its template lifts. */
export interface PinnedRoot {
  hostPath: string;
  unprotected: readonly string[];
}

/** What is held in one workspace: per place, by kind, before the order is fixed. */
interface Holdings {
  readOnly: Set<string>;
  links: Set<string>;
  absent: Map<string, Placeholder>;
  /** jj's layout: read-only directories, and the writable ones over them. */
  jjReadOnly: string[];
  jjWritable: string[];
}

/**
 * The pins of each writable workspace (see Pin): every guarded path held wherever it leads
 * (resolveGuard: through links, into another of the sandbox's workspaces too), jj's layout, the
 * stand-ins (their mount points made as the user when `standIns`), and, first, the directories
 * holding them bound onto themselves (a mount point cannot be renamed, so the agent cannot move
 * `.git` aside and put a `.git/config` of its own in its place). Returns the pins by workspace
 * and the stand-ins made now (the caller records them: they are removed by what was made).
 */
export async function workspacePins(
  roots: readonly PinnedRoot[],
  owner: { uid: number; gid: number },
  standIns: boolean,
): Promise<{ pins: Pin[][]; made: StandIn[][] }> {
  const paths = roots.map((root) => root.hostPath);
  const holdings: Holdings[] = roots.map(() => ({
    readOnly: new Set(),
    links: new Set(),
    absent: new Map(),
    jjReadOnly: [],
    jjWritable: [],
  }));
  for (const [index, root] of roots.entries()) {
    for (const guard of await workspaceGuards(root.hostPath, root.unprotected)) {
      for (const step of await resolveGuard(paths, index, guard)) hold(holdings, step, roots);
    }
    const jj = (await resolveGuard(paths, index, { path: ".jj", placeholder: null })).at(-1);
    if (jj?.state === "present") await addJjLayout(holdings[jj.root], paths[jj.root] ?? "/", jj.path);
  }
  const made: StandIn[][] = [];
  const pins: Pin[][] = [];
  for (const [index, held] of holdings.entries()) {
    pruneCovered(held);
    if (!standIns) held.absent.clear();
    const result = await makeMountPoints(paths[index] ?? "/", held.absent, owner);
    for (const path of result.denied) held.absent.delete(path);
    made.push(result.made);
    pins.push(ordered(held));
  }
  return { pins, made };
}

function hold(holdings: Holdings[], step: GuardStep, roots: readonly PinnedRoot[]): void {
  const held = holdings[step.root];
  if (held === undefined) return;
  if (step.state === "unholdable") {
    const where = join(roots[step.root]?.hostPath ?? "/", step.path);
    throw new SandboxError(
      `a protected path in the workspace leads to ${where}, a workspace itself or a directory holding one: it cannot be held read-only without the whole workspace. Replace the link with what it should point to, or list the path in the template's workspace.unprotected`,
      "usage",
    );
  }
  if (step.state === "link") held.links.add(step.path);
  if (step.state === "present") held.readOnly.add(step.path);
  if (step.state === "absent" && !held.absent.has(step.path)) held.absent.set(step.path, step.placeholder);
}

/**
 * `.jj` (at `dir`, where a `.jj` leads) read-only, `repo` in it too when it is the store, and
 * what jj writes read-write over them (see jjLayout); nothing for a `.jj` that is no directory.
 */
async function addJjLayout(held: Holdings | undefined, root: string, dir: string): Promise<void> {
  if (held === undefined || !(await isDirectory(join(root, dir)))) return;
  const local = (path: string): string => path.replace(/^\.jj/, dir);
  for (const ro of jjLayout.readOnly) if (await isRealDirectory(root, local(ro))) held.jjReadOnly.push(local(ro));
  for (const rw of jjLayout.writable) {
    const parent = local(rw).slice(0, local(rw).lastIndexOf("/"));
    if (held.jjReadOnly.includes(parent) && (await isRealDirectory(root, local(rw)))) held.jjWritable.push(local(rw));
  }
}

/**
 * Drops what another pin already holds: anything under a read-only path or a stand-in, and a
 * stand-in in jj's read-only directories (nothing can be created there anyway).
 */
function pruneCovered(held: Holdings): void {
  const roots = [...held.readOnly, ...held.absent.keys()];
  const covered = (path: string): boolean => ancestors(path).some((dir) => roots.includes(dir));
  for (const set of [held.readOnly, held.links]) for (const path of [...set]) if (covered(path)) set.delete(path);
  for (const path of [...held.absent.keys()])
    if (covered(path) || held.jjReadOnly.includes(ancestors(path).at(-1) ?? "")) held.absent.delete(path);
}

/** The pins in mount order: a directory before what lies in it, holders where nothing else is. */
function ordered(held: Holdings): Pin[] {
  const own = new Set([...held.readOnly, ...held.links, ...held.absent.keys(), ...held.jjReadOnly, ...held.jjWritable]);
  const covering = [...held.readOnly, ...held.absent.keys()];
  const holders = new Set(
    [...held.readOnly, ...held.links, ...held.absent.keys()]
      .flatMap(ancestors)
      .filter((dir) => !own.has(dir) && !ancestors(dir).some((up) => covering.includes(up))),
  );
  const pins: Pin[] = [
    ...held.jjReadOnly.map((path) => ({ kind: "self" as const, path, readOnly: true })),
    ...held.jjWritable.map((path) => ({ kind: "self" as const, path, readOnly: false })),
    ...[...holders].map((path) => ({ kind: "self" as const, path, readOnly: false })),
    ...[...held.readOnly].map((path) => ({ kind: "self" as const, path, readOnly: true })),
    ...[...held.links].map((path) => ({ kind: "self" as const, path, readOnly: true, link: true as const })),
    ...[...held.absent].map(([path, placeholder]) => ({ kind: "stand-in" as const, path, placeholder })),
  ];
  return pins.sort((a, b) => compareSegments(a.path, b.path));
}

/** Parents before children; otherwise by name (a stable order for one tree). */
function compareSegments(a: string, b: string): number {
  const [x, y] = [a.split("/"), b.split("/")];
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] ?? "") < (y[i] ?? "") ? -1 : 1;
  return x.length - y.length;
}

/** "a/b/c" → ["a", "a/b"]. */
export function ancestors(path: string): string[] {
  const parts = path.split("/");
  return parts.slice(1).map((_, i) => parts.slice(0, i + 1).join("/"));
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() === true;
}

/** A directory at `path` under `root` reached without links (jj's parts are never followed). */
async function isRealDirectory(root: string, path: string): Promise<boolean> {
  const steps = await resolveGuard([root], 0, { path, placeholder: null });
  return (
    steps.length === 1 &&
    steps[0]?.state === "present" &&
    steps[0].path === path &&
    (await isDirectory(join(root, path)))
  );
}

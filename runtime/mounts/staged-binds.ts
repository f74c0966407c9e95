import { mkdir, mkdtemp, readFile, rmdir, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPinned, type PinnedPath } from "../core/pinned-path.js";
import { SandboxError } from "../core/errors.js";
import type { Bind, Pin, Placeholder } from "../core/bind.js";
import { bindDescriptors, pinInside, unmountPoints } from "./host-mounts.js";

/** Binds ready for systemd-nspawn, and how to take the staging mounts down again. */
export interface StagedBinds {
  binds: Bind[];
  /** Unmounts the staging mounts (the container keeps its own copies) and removes their directory; once (later calls wait for the first). */
  release(): Promise<void>;
}

/**
 * Makes every user-controlled bind source (a Bind with `owners`) safe to hand to systemd-nspawn,
 * which resolves a bind's source path again itself: the source is opened once without following
 * links and checked on that descriptor (type, owner), then the descriptor's own file is bound
 * onto a mount point in a fresh root-only directory, and nspawn gets that path. Nothing the user
 * renames afterwards changes what is mounted.
 *
 * Why not `--bind=/proc/self/fd/N`: nspawn makes its binds in its own new mount namespace, and the
 * kernel refuses (EINVAL) a bind from a mount of another namespace, which the inherited descriptor
 * is; nspawn would also pass the descriptors on to the container's payload.
 * A workspace with pins is assembled here, inside its staged mount (pinInside: links held, guarded
 * paths read-only, stand-ins), and nspawn gets the tree: its `--bind` is recursive and keeps each
 * mount's own read-only flag (systemd 252, seen here), `--bind-ro` makes all of it read-only.
 */
export async function stageBinds(binds: readonly Bind[]): Promise<StagedBinds> {
  if (!binds.some((b) => b.owners !== undefined)) return { binds: [...binds], release: async () => undefined };
  const dir = await mkdtemp(join(tmpdir(), "forage-binds-"));
  const mounted: string[] = [];
  const made: string[] = [];
  let releasing: Promise<void> | undefined;
  const takeDown = async (): Promise<void> => {
    // One process for all of them (it goes on past one that fails).
    await unmountPoints(mounted.reverse());
    await Promise.all(made.map((path) => unlink(path).catch(() => rmdir(path).catch(() => undefined))));
    await rmdir(dir).catch(() => undefined);
  };
  const release = (): Promise<void> => (releasing ??= takeDown());
  const pinned: { source: PinnedPath; point: string }[] = [];
  try {
    // All at once: a sandbox has a few dozen stand-ins, each a file system call or two. Every
    // step is awaited before a clean-up, so what each made is known.
    const settled = await Promise.allSettled(
      binds.map((bind, index) => stageOne(bind, join(dir, String(index)), made, pinned)),
    );
    const failed = settled.find((step) => step.status === "rejected");
    if (failed !== undefined) throw failed.reason;
    const staged = settled.flatMap((step) => (step.status === "fulfilled" ? [step.value] : []));
    await bindAll(
      pinned.map(({ source, point }) => ({ fd: source.handle.fd, point })),
      mounted,
    );
    for (const [index, bind] of binds.entries())
      if (bind.pins !== undefined) await assemble(join(dir, String(index)), bind.pins, made);
    return { binds: staged, release };
  } catch (error) {
    await release();
    throw error;
  } finally {
    for (const { source } of pinned) await source.handle.close();
  }
}

/** One bind as nspawn gets it: a user's source pinned (bound later), anything else as it is. */
async function stageOne(
  bind: Bind,
  point: string,
  made: string[],
  pinned: { source: PinnedPath; point: string }[],
): Promise<Bind> {
  if (bind.owners === undefined) return bind;
  pinned.push({ source: await pinnedSource(bind.source, bind.owners, point, made), point });
  return { source: point, target: bind.target, readOnly: bind.readOnly };
}

/**
 * Makes a workspace's pins inside its staged mount `point`, in order; a stand-in's root-owned
 * source is made beside the point first. A failure leaves the tree to the caller's release (which
 * detaches it whole).
 */
async function assemble(point: string, pins: readonly Pin[], made: string[]): Promise<void> {
  const steps: { kind: "ro" | "rw" | "link" | "from"; path: string; source: string }[] = [];
  for (const [n, pin] of pins.entries()) {
    if (pin.kind === "self")
      steps.push({ kind: pin.link === true ? "link" : pin.readOnly ? "ro" : "rw", path: pin.path, source: "" });
    else
      steps.push({ kind: "from", path: pin.path, source: await makeStandIn(`${point}.${n}`, pin.placeholder, made) });
  }
  const done = await pinInside(point, steps);
  if (!done.ok)
    throw new SandboxError(
      `could not hold the protected paths of the workspace staged in ${point}: ${done.reason}`,
      "container",
    );
}

async function makeStandIn(path: string, placeholder: Placeholder, made: string[]): Promise<string> {
  if (placeholder.kind === "directory") await mkdir(path, { mode: 0o755 });
  else await writeFile(path, placeholder.text, { mode: 0o444 });
  made.push(path);
  return path;
}

/** Opens `source` pinned, checks its owner, and makes its mount point `point` (of the same kind). */
async function pinnedSource(
  source: string,
  owners: readonly number[],
  point: string,
  made: string[],
): Promise<PinnedPath> {
  const pinned = await openPinned(source);
  try {
    if (!owners.includes(pinned.uid))
      throw new SandboxError(
        `${source} belongs to uid ${pinned.uid}, not to uid ${owners.join(" or ")}: the sandbox mounts only its user's own files`,
        "usage",
      );
    if (pinned.kind === "directory") await mkdir(point, { mode: 0o700 });
    else await writeFile(point, "", { mode: 0o400 });
    made.push(point);
    return pinned;
  } catch (error) {
    await pinned.handle.close();
    throw error;
  }
}

/**
 * Binds each descriptor's own file onto its point, all in one helper process (host-mounts.ts).
 * `mounted` lists the points bound: all of them, or, after a failure, whatever mountinfo still
 * shows (the helper undoes its own batch, unless it was killed midway).
 */
async function bindAll(toMount: readonly { fd: number; point: string }[], mounted: string[]): Promise<void> {
  if (toMount.length === 0) return;
  const bound = await bindDescriptors(toMount);
  if (bound.ok) return void mounted.push(...toMount.map((m) => m.point));
  mounted.push(...(await boundPoints(toMount.map((m) => m.point))));
  throw new SandboxError(`could not stage the binds in ${toMount[0]?.point ?? ""}/..: ${bound.reason}`, "container");
}

/** The points that are mount points now (bound), from /proc/self/mountinfo. */
async function boundPoints(points: readonly string[]): Promise<string[]> {
  const info = await readFile("/proc/self/mountinfo", "utf8");
  // Field 5 is the mount point, with space, tab, newline and backslash as octal escapes.
  const targets = new Set(
    info
      .split("\n")
      .map((line) =>
        (line.split(" ")[4] ?? "").replace(/\\([0-7]{3})/g, (_, octal: string) =>
          String.fromCharCode(parseInt(octal, 8)),
        ),
      ),
  );
  return points.filter((point) => targets.has(point));
}

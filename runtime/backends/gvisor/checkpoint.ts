import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { joinCgroupArgv } from "../../cgroups/sandbox-cgroup.js";
import type { Bind } from "../../core/bind.js";
import type { RuntimeContext } from "../../core/context.js";
import { SandboxError } from "../../core/errors.js";
import { runCommand } from "../../core/run-command.js";
import { stageBinds } from "../../mounts/staged-binds.js";
import { addressSandboxEnd, ipv6Enabled, setSandboxEnd, type SandboxLink } from "../../gates/network/sandbox-link.js";
import { linkOf } from "../../gates/network/sandbox-network.js";
import type { SandboxMetadata } from "../../state/metadata.js";
import type { SavedCheckpoint } from "../backend.js";
import { ContainerError } from "../shared/container-error.js";
import { netstackNamespaceCheck } from "./netstack.js";
import {
  bundlePath,
  containerState,
  removeContainer,
  runDetached,
  runscCommand,
  runscLogPath,
  sentryRuns,
  type Runsc,
} from "./runsc.js";

/*
 * Checkpoint and restore under gVisor (runsc checkpoint / runsc restore), as this runsc (2022)
 * allows them, tried here:
 * - With the host's stack (gvisor.network: host) runsc refuses: "checkpoint not supported when
 *   using hostinet". With its own stack (netstack) it saves.
 * - A TCP endpoint of the sandbox on its veth, open or closed less than 60 s before (TIME_WAIT),
 *   makes the save panic ("endpoint cannot be saved in connected state"), and a failed save ends
 *   the sandbox, with --leave-running too. So nothing is saved while the host's conntrack, which
 *   sees every flow of the veth and keeps TIME_WAIT 120 s, knows of one; the sandbox is paused and
 *   its end of the link is down while that is checked and the image written, so no connection
 *   comes in meanwhile. Loopback connections inside are saved and come back.
 * - `runsc restore` without --detach runs the sandbox in the foreground until it ends (what an
 *   earlier try took for a restore that never came back); with --detach it returns in ~0.3 s.
 * - The gofer serves the bind sources the spec names at restore: the staged ones are released
 *   after a start, so restore stages the same binds again (checked again) into the spec.
 * - netstack takes the veth's addresses from the namespace at start and restore: they are given
 *   back before the restore, which takes them again.
 */

/** Where a sandbox's checkpoint image is written: beside its bundle, root's, gone with it at stop. */
function imageDir(bundle: string): string {
  return join(bundle, "checkpoint");
}

/** The image file runsc writes in the image directory. */
const imageFile = "checkpoint.img";

/** The binds a start staged, unstaged, kept beside the bundle so a restore can stage them again. */
function bindsFile(bundle: string): string {
  return join(bundle, "binds.json");
}

/** Records the binds a start stages (root's, 0600: a workspace's paths and owners). */
export async function recordBinds(bundle: string, binds: readonly Bind[]): Promise<void> {
  await writeFile(bindsFile(bundle), JSON.stringify(binds), { mode: 0o600 });
}

/** The sandbox's checkpoint, or undefined when it has none. */
export async function savedCheckpoint(
  context: RuntimeContext,
  metadata: SandboxMetadata,
): Promise<SavedCheckpoint | undefined> {
  const image = await stat(join(imageDir(bundlePath(context.paths, metadata.name)), imageFile)).catch(() => undefined);
  return image === undefined ? undefined : { savedAt: image.mtime.toISOString(), bytes: image.size };
}

/** One TCP flow the host's conntrack knows of, as conntrack lists it (addresses, ports, state). */
type Flow = string;

/**
 * The TCP flows of the sandbox's addresses that the host's conntrack knows of (either way,
 * either family), each as conntrack lists it; refused when conntrack cannot tell.
 */
async function linkFlows(link: SandboxLink): Promise<Flow[]> {
  const queries = [
    ["-s", link.sandboxAddress],
    ["-d", link.sandboxAddress],
    ["-f", "ipv6", "-s", link.sandboxAddress6],
    ["-f", "ipv6", "-d", link.sandboxAddress6],
  ];
  const listed = await Promise.all(
    queries.map((query) => runCommand("conntrack", ["-L", "-p", "tcp", ...query], { reject: false })),
  );
  const flows = new Set<Flow>();
  for (const result of listed) {
    if (result.spawnError !== undefined || result.exitCode !== 0)
      throw new SandboxError(
        `conntrack cannot list the sandbox's connections (${result.spawnError === undefined ? result.stderr.trim() : "conntrack is not installed"}): a connection gVisor cannot save would end the sandbox; nothing was saved`,
        "container",
      );
    for (const line of result.stdout.split("\n")) if (line.trim() !== "") flows.add(line.trim());
  }
  return [...flows];
}

/** "10.100.1.2:40112 → 10.100.1.1:443 ESTABLISHED" of a conntrack line (its original direction). */
export function describeFlow(line: Flow): string {
  const field = (name: string): string => new RegExp(`\\b${name}=(\\S+)`).exec(line)?.[1] ?? "?";
  const state = /^\S+\s+\d+\s+\d+\s+([A-Z_]+)\s/.exec(line)?.[1] ?? "";
  return `${field("src")}:${field("sport")} → ${field("dst")}:${field("dport")}${state === "" ? "" : ` ${state}`}`;
}

/**
 * Pauses the sandbox with its link's end down when the host's conntrack knows no TCP flow of it;
 * waits up to `waitSeconds` (checking each second) for that; refuses with the flows otherwise.
 * Returns how to undo the pause (resume, link up).
 */
async function pauseWithoutFlows(
  runsc: Runsc,
  id: string,
  link: SandboxLink,
  waitSeconds: number,
  progress?: (line: string) => void,
): Promise<() => Promise<void>> {
  const deadline = Date.now() + waitSeconds * 1000;
  let said = false;
  for (;;) {
    let flows = await linkFlows(link);
    if (flows.length === 0) {
      await runscCommand(runsc, ["pause", id], "pause the sandbox");
      const undo = async (): Promise<void> => {
        await setSandboxEnd(link, "up");
        await runscCommand(runsc, ["resume", id], "resume the sandbox");
      };
      try {
        await setSandboxEnd(link, "down");
        flows = await linkFlows(link);
      } catch (error) {
        await undo();
        throw error;
      }
      if (flows.length === 0) return undo;
      await undo();
    }
    if (Date.now() >= deadline) throw flowsInTheWay(flows, waitSeconds);
    if (!said)
      progress?.(
        `waiting up to ${waitSeconds} s for the sandbox's ${flows.length} TCP connection(s) to end: ${flows.map(describeFlow).join(", ")}`,
      );
    said = true;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

function flowsInTheWay(flows: readonly Flow[], waitSeconds: number): SandboxError {
  return new SandboxError(
    `the sandbox has ${flows.length} TCP connection(s) on its link (open, or closed less than 2 minutes ago): ${flows.map(describeFlow).join(", ")}. ` +
      `gVisor cannot save a connected socket, and a failed save would end the sandbox, so nothing was saved and it runs on${waitSeconds > 0 ? ` (waited ${waitSeconds} s)` : ""}. ` +
      "End them (or wait for them to close) and try again; --wait SECONDS waits for them.",
    "container",
  );
}

/**
 * Saves the running sandbox under `runsc` into its image directory and ends it (runsc's record of
 * it too); its root, bundle, link, tables and cgroup stay for the restore. Refuses, the sandbox
 * running on, when it was started with the host's stack or holds TCP connections on its link.
 */
export async function saveGvisor(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  runsc: Runsc,
  id: string,
  options: { waitSeconds: number; progress?: (line: string) => void },
): Promise<SavedCheckpoint> {
  if (runsc.stack !== "sandbox")
    throw new SandboxError(
      `sandbox ${metadata.name} runs on the host's network stack (gvisor.network: host), and runsc cannot checkpoint that ("checkpoint not supported when using hostinet"); a template with gVisor's own stack (gvisor.network: sandbox, the default) can be checkpointed`,
      "usage",
    );
  const bundle = bundlePath(context.paths, metadata.name);
  const dir = imageDir(bundle);
  const link = linkOf(context, metadata);
  const undoPause = await pauseWithoutFlows(runsc, id, link, options.waitSeconds, options.progress);
  options.progress?.("saving the sandbox");
  try {
    await rm(dir, { recursive: true, force: true });
    // The image holds the sandbox's memory, whatever secret it read: root's alone (runsc would make it 0755).
    await mkdir(dir, { mode: 0o700 });
    await runscCommand(runsc, ["checkpoint", `--image-path=${dir}`, id], "checkpoint the sandbox", 300_000);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    const alive = metadata.pid !== null && (await sentryRuns(runsc.stateRoot, metadata.pid, bundle, id));
    if (!alive)
      throw new ContainerError(
        `${(error as Error).message}\ngVisor ended the sandbox when its save failed; forage-ctl start ${metadata.name} starts it again on a fresh root (the workspace is kept)`,
      );
    await undoPause();
    throw new ContainerError(`${(error as Error).message}\nnothing was saved; the sandbox runs on`);
  }
  await endSaved(runsc, id, metadata);
  await setSandboxEnd(link, "up");
  const saved = await savedCheckpoint(context, metadata);
  if (saved === undefined) throw new ContainerError("runsc said the sandbox was saved, but wrote no image");
  return saved;
}

/**
 * Ends what is left of a saved sandbox and runsc's record of it, without letting it run again (a
 * resume would let its processes go on past the image for a moment): removeContainer kills it
 * through its cgroup, and removes the record, which says paused.
 */
async function endSaved(runsc: Runsc, id: string, metadata: SandboxMetadata): Promise<void> {
  const state = await containerState(runsc, id);
  if (state !== undefined) await removeContainer(runsc, id, metadata.cgroup, state.status);
  if ((await containerState(runsc, id)) !== undefined)
    throw new ContainerError(`runsc still lists the saved sandbox's container ${id}`);
}

/**
 * Runs the saved sandbox again from its image: its binds staged again from what its start
 * recorded (checked again, as at every start), put into its spec; the veth's addresses given back;
 * `runsc restore` detached, in the sandbox's cgroup and namespace. The image goes once the sandbox
 * runs; when the restore fails it stays, for another try.
 */
export async function restoreGvisor(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  runsc: Runsc,
  id: string,
): Promise<SandboxMetadata> {
  const bundle = bundlePath(context.paths, metadata.name);
  if ((await savedCheckpoint(context, metadata)) === undefined)
    throw new SandboxError(
      `sandbox ${metadata.name} has no checkpoint (forage-ctl checkpoint ${metadata.name} makes one)`,
      "usage",
    );
  if (metadata.cgroup === null)
    throw new ContainerError(`sandbox ${metadata.name}'s checkpoint has lost its cgroup; start it afresh`);
  const binds = JSON.parse(await readFile(bindsFile(bundle), "utf8")) as Bind[];
  const staged = await stageBinds(binds);
  try {
    await respec(bundle, staged.binds);
    const link = linkOf(context, metadata);
    await addressSandboxEnd(link, await ipv6Enabled());
    if (runsc.stack === "sandbox") await netstackNamespaceCheck(link.namespacePath);
    const groups = metadata.cgroup.procsFiles;
    const pid = await runDetached(
      runsc,
      id,
      bundle,
      runscLogPath(context.paths, metadata.name),
      (argv) => joinCgroupArgv(groups, argv),
      { restoreFrom: imageDir(bundle) },
    ).catch(async (error: unknown) => {
      await runscCommand(runsc, ["delete", "--force", id], "remove the failed restore").catch(() => undefined);
      throw new ContainerError(
        `${(error as Error).message}\nthe checkpoint is kept: try again, or forage-ctl start ${metadata.name} starts the sandbox afresh`,
      );
    });
    await rm(imageDir(bundle), { recursive: true, force: true });
    return { ...metadata, pid };
  } finally {
    // The gofer holds its own copies of the staged binds now.
    await staged.release();
  }
}

/**
 * Puts the freshly staged binds' sources into the bundle's spec, each for the mount at its
 * target. Every bind mount must get one: an old staged source is a released directory under /tmp,
 * which anyone could make again and fill.
 */
async function respec(bundle: string, binds: readonly Bind[]): Promise<void> {
  const specFile = join(bundle, "config.json");
  const spec = JSON.parse(await readFile(specFile, "utf8")) as {
    mounts: { destination: string; type: string; source: string }[];
  };
  const sources = new Map(binds.map((bind) => [bind.target, bind.source]));
  for (const mount of spec.mounts) {
    if (mount.type !== "bind") continue;
    const source = sources.get(mount.destination);
    if (source === undefined)
      throw new ContainerError(`the checkpoint's spec binds ${mount.destination}, which its start did not record`);
    mount.source = source;
  }
  await writeFile(specFile, JSON.stringify(spec), { mode: 0o600 });
}

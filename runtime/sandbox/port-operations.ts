import { recordEvent } from "../core/audit-log.js";
import type { RuntimeContext } from "../core/context.js";
import { SandboxError } from "../core/errors.js";
import { syncForwards } from "../gates/network/guard-process.js";
import type { ForwardState } from "../gates/network/port-forwarder.js";
import { portHolder } from "../gates/network/port-holder.js";
import { linkOf } from "../gates/network/sandbox-network.js";
import { listMetadata, writeMetadata } from "../state/metadata-store.js";
import type { SandboxMetadata } from "../state/metadata.js";
import { describeForward, forwardHost, portLimits, type PortForward } from "../state/port-spec.js";
import { requireSandbox } from "../state/require-sandbox.js";
import { withSandboxLock } from "../state/sandbox-lock.js";
import { isRunning } from "./start-stop.js";

/** What `forage-ctl port` asks: open a forward, close one (by host port, and sandbox port if given), or nothing. */
export type PortChange =
  { kind: "add"; forward: PortForward } | { kind: "remove"; hostPort: number; port: number | null } | null;

/** One forward as `forage-ctl port NAME` lists it. */
export interface PortView extends PortForward {
  /** Always 127.0.0.1: forwards listen on the host's loopback only. */
  hostAddress: string;
  /** Where connections go: the sandbox's own address. */
  sandboxAddress: string;
  /** open: listening now; closed: the sandbox (or its guard) is not running, it opens with it; failed: it could not listen. */
  state: "open" | "closed" | "failed";
  /** Why it failed (e.g. "EADDRINUSE"), else null. */
  error: string | null;
}

/**
 * `forage-ctl port`: changes a sandbox's forwards (recorded in its metadata, then put in force
 * by its guard in the guard host, which holds them for as long as the sandbox runs), then lists
 * them. Opening one needs the sandbox running, and a host port free; closing one works stopped too.
 */
export async function portOperation(context: RuntimeContext, name: string, change: PortChange): Promise<PortView[]> {
  if (change === null) {
    const metadata = await requireSandbox(context, name);
    return views(context, metadata, await runningForwards(context, metadata));
  }
  return withSandboxLock(context, name, async () => {
    const metadata = await requireSandbox(context, name);
    const changed =
      change.kind === "add"
        ? await addForward(context, metadata, change.forward)
        : await removeForward(context, metadata, change);
    return views(context, changed.metadata, changed.states);
  });
}

/** The metadata as a change left it, and its guard's report (null: no guard, the sandbox is stopped). */
interface Changed {
  metadata: SandboxMetadata;
  states: ForwardState[] | null;
}

async function addForward(context: RuntimeContext, metadata: SandboxMetadata, forward: PortForward): Promise<Changed> {
  const { name } = metadata;
  if (!(await isRunning(context, metadata)))
    throw new SandboxError(
      `sandbox "${name}" is stopped: start it first (forage-ctl start ${name}); its forwards open with it`,
      "container",
    );
  const current = metadata.ports ?? [];
  const same = current.find((each) => each.hostPort === forward.hostPort);
  if (same !== undefined && same.port !== forward.port)
    throw new SandboxError(
      `${forwardHost}:${forward.hostPort} already forwards to port ${same.port} of ${name} (close it first: forage-ctl port ${name} ${forward.hostPort} --remove)`,
      "general",
    );
  if (same === undefined) await refuseTaken(context, name, forward.hostPort);
  if (same === undefined && current.length >= portLimits.maxPerSandbox)
    throw new SandboxError(
      `${name} has ${current.length} forwards, the most a sandbox may have: close one first (forage-ctl port ${name} HOSTPORT --remove)`,
      "usage",
    );
  const changed = { ...metadata, ports: same === undefined ? [...current, forward] : current };
  await writeMetadata(context.paths, changed);
  const states = await syncOrUndo(context, metadata, () => writeMetadata(context.paths, metadata));
  const state = states.find((each) => each.hostPort === forward.hostPort);
  if (state?.open !== true) {
    await writeMetadata(context.paths, metadata);
    await syncForwards(context.paths, metadata.guard, name).catch(() => null);
    throw new SandboxError(
      `${forwardHost}:${forward.hostPort} cannot be opened for ${name}: ${await whyNot(state?.error ?? "the guard did not report it", forward.hostPort)}`,
      "general",
    );
  }
  if (same === undefined)
    await recordEvent(context.paths, name, "network", { detail: `port ${describeForward(forward)} opened` });
  return { metadata: changed, states };
}

async function removeForward(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  change: { hostPort: number; port: number | null },
): Promise<Changed> {
  const { name } = metadata;
  const current = metadata.ports ?? [];
  const found = current.find(
    (each) => each.hostPort === change.hostPort && (change.port === null || each.port === change.port),
  );
  if (found === undefined) {
    const asked =
      change.port === null
        ? `${forwardHost}:${change.hostPort}`
        : describeForward({ hostPort: change.hostPort, port: change.port });
    const known = current.length === 0 ? "it has none" : `its forwards: ${current.map(describeForward).join(", ")}`;
    throw new SandboxError(`${name} has no forward ${asked} (${known}; see forage-ctl port ${name})`, "general");
  }
  const changed = { ...metadata, ports: current.filter((each) => each !== found) };
  await writeMetadata(context.paths, changed);
  await recordEvent(context.paths, name, "network", { detail: `port ${describeForward(found)} closed` });
  // Stopped: nothing listens, the record is all there was.
  return { metadata: changed, states: await runningForwards(context, changed) };
}

/** A host port another sandbox of this state directory forwards is refused with its name (its guard may be stopped). */
async function refuseTaken(context: RuntimeContext, name: string, hostPort: number): Promise<void> {
  const other = (await listMetadata(context.paths)).find(
    (each) => each.name !== name && (each.ports ?? []).some((forward) => forward.hostPort === hostPort),
  );
  if (other !== undefined)
    throw new SandboxError(
      `${forwardHost}:${hostPort} is taken: sandbox ${other.name} forwards it (forage-ctl port ${other.name} ${hostPort} --remove)`,
      "general",
    );
}

/** The guard's report after a change; without a guard, the change is undone and refused. */
async function syncOrUndo(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  undo: () => Promise<void>,
): Promise<ForwardState[]> {
  const failed = (reason: string): Promise<never> =>
    undo().then(() => {
      throw new SandboxError(
        `the network guard of ${metadata.name} ${reason} (forage-ctl network ${metadata.name} shows its health; forage-ctl stop and start restart it)`,
        "container",
      );
    });
  const states = await syncForwards(context.paths, metadata.guard, metadata.name).catch((error: Error) =>
    failed(`refused: ${error.message}`),
  );
  return states ?? failed("is not running");
}

/** The guard's report of a running sandbox's forwards (after it matched them to the metadata); null when stopped. */
async function runningForwards(context: RuntimeContext, metadata: SandboxMetadata): Promise<ForwardState[] | null> {
  if (!(await isRunning(context, metadata))) return null;
  return syncForwards(context.paths, metadata.guard, metadata.name).catch((error: Error) => {
    throw new SandboxError(
      `the network guard of ${metadata.name} refused: ${error.message} (forage-ctl network ${metadata.name} shows its health)`,
      "container",
    );
  });
}

/** "in use by pid 812 (python3 -m http.server 8080)", or the error as the guard reported it. */
async function whyNot(error: string, hostPort: number): Promise<string> {
  if (error === "EADDRINUSE") return `the port is in use by ${await portHolder(hostPort)}`;
  if (error === "EACCES") return "the guard host may not listen there (permission denied)";
  return error;
}

function views(context: RuntimeContext, metadata: SandboxMetadata, states: ForwardState[] | null): PortView[] {
  const sandboxAddress = linkOf(context, metadata).sandboxAddress;
  return (metadata.ports ?? []).map((forward) => {
    const state = states?.find((each) => each.hostPort === forward.hostPort && each.port === forward.port);
    return {
      ...forward,
      hostAddress: forwardHost,
      sandboxAddress,
      state: state === undefined ? "closed" : state.open ? "open" : "failed",
      error: state?.error ?? null,
    };
  });
}

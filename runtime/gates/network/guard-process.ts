import { spawn } from "node:child_process";
import { constants, open, readFile } from "node:fs/promises";
import { connect } from "node:net";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { GuardServices } from "../../../generator/policy/network/host-table.js";
import type { RuntimeContext } from "../../core/context.js";
import { SandboxError } from "../../core/errors.js";
import { lineReader } from "../../core/json-lines.js";
import { packageRoot } from "../../core/package-root.js";
import type { RuntimePaths } from "../../core/paths.js";
import type { SandboxMetadata } from "../../state/metadata.js";
import { guardAnswer, type GuardAnswer, type GuardRequest } from "./guard-protocol.js";
import type { GuardSpec } from "./guard-spec.js";
import type { ForwardState } from "./port-forwarder.js";

/** A running guard as the metadata records it: the guard host's pid, and the sandbox's ports. */
export interface GuardHandle extends GuardServices {
  pid: number;
}

/** How long a starting guard host gets to answer (it loads the DNS filter and the policy layer first). */
const hostStartMs = 10_000;
/** How long one request may take (a reload rewrites the allowed sets). */
const requestMs = 10_000;

/**
 * Has the sandbox guarded by the host's guard host (guard-host.ts), starting the host when none
 * answers. Resolves once the sandbox's DNS filter and name gate listen.
 */
export async function startGuard(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  namespace: string | undefined,
): Promise<GuardHandle> {
  const spec: GuardSpec = {
    sandbox: metadata.name,
    slot: metadata.slot,
    paths: context.paths,
    base: context.settings.host.network.base,
    upstream: context.settings.host.network.upstreamResolver,
    namespace: namespace ?? null,
    admitPrivate: context.settings.host.network.admitPrivate,
  };
  try {
    const answer = await askHost(context.paths, { op: "add", spec }, true);
    if (answer.services === undefined) throw new Error("the guard host answered without the sandbox's ports");
    return { pid: answer.pid, ...answer.services };
  } catch (error) {
    throw new SandboxError(
      `the network guard of ${metadata.name} failed: ${(error as Error).message} (the guard host's log: ${hostLog(context.paths)})`,
      "container",
    );
  }
}

/** True when the guard host that `guard` names runs and guards this sandbox. */
export async function isOurGuard(paths: RuntimePaths, guard: GuardHandle | null, sandbox: string): Promise<boolean> {
  if (guard === null) return false;
  const answer = await askHost(paths, { op: "has", stateDir: paths.stateDir, sandbox }, false).catch(() => undefined);
  return answer?.has === true && answer.pid === guard.pid;
}

/** Stops guarding the sandbox (its sockets close). A host or guard already gone is fine. */
export async function stopGuard(paths: RuntimePaths, guard: GuardHandle | null, sandbox: string): Promise<void> {
  if (guard === null) return;
  await askHost(paths, { op: "remove", stateDir: paths.stateDir, sandbox }, false).catch(() => undefined);
}

/**
 * Tells the sandbox's guard its policy changed (it re-reads the metadata and refills the allowed
 * sets of the tables just loaded) and waits until it has, so the change is whole when forage-ctl
 * returns. False when it is not guarded or the reload failed (the sandbox's guard.log says why).
 */
export async function reloadGuard(paths: RuntimePaths, guard: GuardHandle | null, sandbox: string): Promise<boolean> {
  if (guard === null) return false;
  return askHost(paths, { op: "reload", stateDir: paths.stateDir, sandbox }, false).then(
    () => true,
    () => false,
  );
}

/**
 * Has the sandbox's guard read the tables' refusals into its denial records now (a quiet
 * sandbox's are read every few seconds only); nothing when it is not guarded.
 */
export async function recordDenials(paths: RuntimePaths, guard: GuardHandle | null, sandbox: string): Promise<void> {
  if (guard === null) return;
  await askHost(paths, { op: "record", stateDir: paths.stateDir, sandbox }, false).catch(() => undefined);
}

/** One request to the guard host; with `start`, a host is started when none answers. */
async function askHost(
  paths: RuntimePaths,
  request: GuardRequest,
  start: boolean,
): Promise<Extract<GuardAnswer, { ok: true }>> {
  let answer = await send(paths.guardSocket, request).catch((error: NodeJS.ErrnoException) => error);
  if (answer instanceof Error && start && (answer.code === "ENOENT" || answer.code === "ECONNREFUSED"))
    answer = await startHost(paths, request);
  if (answer instanceof Error) throw answer;
  if (!answer.ok) throw new Error(answer.error);
  return answer;
}

/** Starts a guard host (detached: it outlives this process, as the sandboxes do) and asks it. */
async function startHost(paths: RuntimePaths, request: GuardRequest): Promise<GuardAnswer | Error> {
  // Never through a link planted in the run directory: root appends to what it opens.
  const log = await open(
    hostLog(paths),
    constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
    0o600,
  );
  const child = spawn(
    process.execPath,
    [join(packageRoot(), "dist/runtime/daemon/guard-host-main.js"), paths.guardSocket],
    { detached: true, stdio: ["ignore", log.fd, log.fd] },
  );
  child.unref();
  await log.close();
  let last: Error = new Error(`the guard host did not answer within ${hostStartMs / 1000} s`);
  for (const deadline = Date.now() + hostStartMs; Date.now() < deadline; await sleep(20)) {
    const answer = await send(paths.guardSocket, request).catch((error: Error) => error);
    if (!(answer instanceof Error)) return answer;
    last = answer;
  }
  const tail = (await readFile(hostLog(paths), "utf8").catch(() => "")).trim().split("\n").slice(-3).join("\n");
  return new Error(`${last.message}${tail === "" ? "" : `\n${tail}`}`);
}

function hostLog(paths: RuntimePaths): string {
  return join(dirname(paths.guardSocket), "guard-host.log");
}

/** Sends one request line and reads one answer line. */
function send(socketPath: string, request: GuardRequest): Promise<GuardAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    const timer = setTimeout(
      () => socket.destroy(new Error(`the guard host did not answer ${request.op} within ${requestMs / 1000} s`)),
      requestMs,
    );
    const done = (action: () => void): void => {
      clearTimeout(timer);
      socket.destroy();
      action();
    };
    socket.once("error", (error) => done(() => reject(error)));
    socket.once("connect", () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on(
      "data",
      lineReader(
        (message) =>
          done(() => {
            try {
              resolve(guardAnswer(message));
            } catch (error) {
              reject(error as Error);
            }
          }),
        (error) => done(() => reject(error)),
      ),
    );
    socket.once("close", () => done(() => reject(new Error("the guard host closed the connection without an answer"))));
  });
}

/**
 * Has the sandbox's guard open and close its port forwards to match its metadata, and says how
 * each is; null when no guard host answers or it is another than `guard` (then the sandbox has
 * no guard: stopped, or its guard is gone). A host's refusal is thrown with its reason.
 */
export async function syncForwards(
  paths: RuntimePaths,
  guard: GuardHandle | null,
  sandbox: string,
): Promise<ForwardState[] | null> {
  if (guard === null) return null;
  const answer = await askHost(paths, { op: "ports", stateDir: paths.stateDir, sandbox }, false).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === undefined) throw error;
      return undefined; // no host listens: nothing is guarded
    },
  );
  if (answer?.pid !== guard.pid) return null;
  if (answer.forwards === undefined)
    throw new Error(
      "the guard host answered without the forwards (an older guard host? it exits once it has no sandbox)",
    );
  return answer.forwards;
}

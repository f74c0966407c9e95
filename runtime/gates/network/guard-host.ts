import { createServer, type Socket } from "node:net";
import { lineReader } from "../../core/json-lines.js";
import { listenPrivately, prepareSocketDirectory } from "../../core/private-socket.js";
import { guardKey, type GuardAnswer } from "./guard-protocol.js";
import { guardRequest } from "./guard-request.js";
import type { GuardSpec } from "./guard-spec.js";
import { logForSandbox, openSandboxGuard, upstreamFor, type SandboxGuard } from "./sandbox-guard.js";
import { SetElementWriter } from "./set-element-writer.js";
import type { AskApproval } from "../approvals/approval.js";

const pollMs = 1000;
/** With no sandbox to guard for this long (by default), the host exits (the next sandbox starts another). */
export const defaultIdleExitMs = 60_000;

/**
 * The network guards of every sandbox on this host, in one process (one per run directory): one
 * Node process and one set-element writer for all the host-side tables, where a process per
 * sandbox cost 70 MB each. forage-ctl adds a sandbox when it starts, removes it when it stops,
 * and asks it to reload a changed policy, over a socket only root reaches. Once a second each
 * sandbox's guard does its upkeep; one whose link is gone is dropped. Sandboxes stay up when the
 * host restarts: the health monitor adds them to the next one.
 */
export async function runGuardHost(
  socketPath: string,
  log: (line: string) => void,
  idleExitMs: number,
  ask: AskApproval,
): Promise<void> {
  const guards = new Map<string, { spec: GuardSpec; guard: SandboxGuard }>();
  const shared: Shared = { hostWriter: new SetElementWriter(null), ask };
  let idleSince = Date.now();
  // Connections open now: one may carry an `add` the host must not exit under.
  let open = 0;
  const server = createServer((socket) => {
    open++;
    socket.once("close", () => open--);
    serveConnection(socket, guards, shared, log);
  });
  await prepareSocketDirectory(socketPath);
  await listenPrivately(server, socketPath, 0);
  log(`guarding sandboxes; socket ${socketPath}`);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, pollMs));
    for (const [key, { spec, guard }] of guards) {
      const alive = await guard.tick().catch(() => true);
      if (alive || guards.get(key)?.guard !== guard) continue;
      guards.delete(key);
      closeInBackground(guard);
      log(`${spec.sandbox}: its link is gone; no longer guarded`);
    }
    if (guards.size > 0 || open > 0) idleSince = Date.now();
    // Decided and closed in one turn of the event loop: no connection comes in between.
    else if (Date.now() - idleSince > idleExitMs) break;
  }
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  log("no sandbox left to guard: exiting");
  await closed;
  shared.hostWriter.close();
}

/**
 * Closes a guard without waiting for it: its sockets stop listening at once (a new guard may bind
 * the same link at once), while its TCP DNS clients may take their idle time to go, and nothing
 * else (the upkeep of the others, an answer) should wait for them.
 */
function closeInBackground(guard: SandboxGuard): void {
  void guard.close().catch(() => undefined);
}

/** What every sandbox's guard in the host shares: the host table's set writer, and the approvals queue it asks. */
interface Shared {
  hostWriter: SetElementWriter;
  ask: AskApproval;
}

function serveConnection(
  socket: Socket,
  guards: Map<string, { spec: GuardSpec; guard: SandboxGuard }>,
  shared: Shared,
  log: (line: string) => void,
): void {
  const answer = (message: GuardAnswer): void => void socket.end(`${JSON.stringify(message)}\n`);
  socket.on("error", () => undefined);
  socket.on(
    "data",
    lineReader(
      (raw) => {
        void handle(raw, guards, shared, log).then(answer, (error: Error) =>
          answer({ ok: false, error: error.message }),
        );
      },
      (error) => answer({ ok: false, error: error.message }),
    ),
  );
}

async function handle(
  raw: unknown,
  guards: Map<string, { spec: GuardSpec; guard: SandboxGuard }>,
  shared: Shared,
  log: (line: string) => void,
): Promise<GuardAnswer> {
  const request = guardRequest(raw);
  if (request.op === "add") {
    const key = guardKey(request.spec.paths.stateDir, request.spec.sandbox);
    // A sandbox started again (its guard's sockets were on the old link) gets a new guard.
    const old = guards.get(key);
    if (old !== undefined) {
      guards.delete(key);
      closeInBackground(old.guard);
    }
    const guard = await openSandboxGuard(request.spec, shared.hostWriter, upstreamFor, shared.ask).catch(
      async (error: Error) => {
        await logForSandbox(request.spec, `the guard could not start: ${error.message}`);
        throw error;
      },
    );
    guards.set(key, { spec: request.spec, guard });
    log(`${request.spec.sandbox}: guarded (DNS port ${guard.services.dnsPort})`);
    return { ok: true, pid: process.pid, services: guard.services };
  }
  const entry = guards.get(guardKey(request.stateDir, request.sandbox));
  if (request.op === "has") return { ok: true, pid: process.pid, has: entry !== undefined };
  if (entry === undefined) return { ok: false, error: `sandbox ${request.sandbox} is not guarded here` };
  if (request.op === "remove") {
    guards.delete(guardKey(request.stateDir, request.sandbox));
    closeInBackground(entry.guard);
    log(`${request.sandbox}: no longer guarded`);
    return { ok: true, pid: process.pid };
  }
  if (request.op === "ports") return { ok: true, pid: process.pid, forwards: await entry.guard.forwards() };
  if (request.op === "record") {
    await entry.guard.record();
    return { ok: true, pid: process.pid };
  }
  await entry.guard.reload().catch(async (error: Error) => {
    await logForSandbox(entry.spec, `reload failed: ${error.message}`);
    throw error;
  });
  return { ok: true, pid: process.pid };
}

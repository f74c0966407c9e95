import { detectRuntimes } from "../backends/registry.js";
import { templateSummaries } from "./template-summary.js";
import { spawn } from "node:child_process";
import { sandboxLink } from "../gates/network/sandbox-link.js";
import { readEvents, recordEvent } from "../core/audit-log.js";
import type { RuntimeContext } from "../core/context.js";
import { requireSandbox } from "../state/require-sandbox.js";
import { destroySandbox } from "../sandbox/down.js";
import { execCommand, execInRunning, type ExecResult } from "../sandbox/exec.js";
import { findOrphans, removeOrphans } from "../sandbox/gc.js";
import { sessionLogs } from "../sandbox/session-logs.js";
import { pinnedHostKey } from "../provision/ssh-files.js";
import { hasSession } from "../sandbox/session.js";
import { isRunning } from "../sandbox/start-stop.js";
import { resetSandbox, startExisting, stopExisting } from "../sandbox/lifecycle-changes.js";
import { upSandbox } from "../sandbox/up.js";
import { checkpointSandbox, restoreSandbox } from "../sandbox/checkpoint.js";
import { checkpointOf, notRunning } from "../sandbox/checkpoint-state.js";
import { backendOf } from "../backends/registry.js";
import { listMetadata } from "../state/metadata-store.js";
import type { SandboxMetadata } from "../state/metadata.js";
import { repoOwnerOf } from "../workspaces/repo-owner.js";
import { denialsOperation, networkOperation } from "../sandbox/network-operations.js";
import { portOperation } from "../sandbox/port-operations.js";
import { createSnapshot, listSnapshots, restoreSnapshot } from "../workspaces/snapshots.js";
import { signalGroup, startOnTerminal, type EnterOnTerminal } from "../sandbox/terminal.js";
import { seccompStatus } from "../seccomp/status.js";
import { quotaUsage } from "../workspaces/disk-quota.js";
import { PhaseClock } from "../core/phase-clock.js";
import { dropUndefined } from "../../generator/lib/drop-undefined.js";
import type { ExecStreams, RelayedTerminal } from "./exec-streams.js";
import { forgetLogin, loginStatuses, setLogin } from "../logins/login-operations.js";
import type { Operations } from "./operations.js";
import type { SandboxView } from "./sandbox-view.js";
import { servedByProxy } from "../gates/api-proxy/proxy-status.js";
import { mcpViewOf } from "./mcp-view.js";
import { networkModeInForce } from "../gates/network/policy-in-force.js";

/** The operations, run in this process (which must be root). */
export function localOperations(context: RuntimeContext): Operations {
  const view = (metadata: SandboxMetadata): Promise<SandboxView> => sandboxView(context, metadata);
  return {
    via: "in-process",
    async up(request, progress) {
      const clock = request.timings === true ? new PhaseClock() : undefined;
      const sandbox = await upSandbox(clock === undefined ? context : { ...context, clock }, {
        name: request.name,
        template: request.template,
        workspace: dropUndefined({
          directory: request.workspace,
          repo: request.repo,
          direct: request.direct,
          namedRepos: request.repos,
        }),
        identity: dropUndefined({
          gitUser: request.gitUser,
          gitEmail: request.gitEmail,
          sshKeyPath: request.sshKeyPath,
        }),
        ...dropUndefined({
          sshKeys: request.sshKeys,
          sshAgent: request.sshAgent,
          sshAuthSock: request.sshAuthSock,
          muxConfig: request.muxConfig,
          runtime: request.runtime,
          network: request.network,
          progress,
        }),
      });
      return clock === undefined ? view(sandbox) : { ...(await view(sandbox)), timings: clock.report() };
    },
    down: ({ name, grace }) => destroySandbox(context, name, grace),
    list: async () => Promise.all((await listMetadata(context.paths)).map(view)),
    status: async ({ name }) => view(await requireSandbox(context, name, "allowed")),
    start: ({ name, sshAuthSock }) => startExisting(context, name, sshAuthSock),
    stop: ({ name, grace }) => stopExisting(context, name, grace),
    reset: ({ name, sshAuthSock }) => resetSandbox(context, name, sshAuthSock),
    checkpoint: ({ name, wait }, progress) =>
      checkpointSandbox(context, name, dropUndefined({ waitSeconds: wait, progress })),
    restore: ({ name }) => restoreSandbox(context, name),
    auditLog: async ({ name }) => readEvents(context.paths, name),
    async logs({ name, lines }) {
      const metadata = await requireSandbox(context, name);
      if (!(await isRunning(context, metadata))) throw await notRunning(context, metadata);
      return sessionLogs(context, metadata, lines);
    },
    async gc({ force }) {
      const orphans = await findOrphans(context);
      if (force) await removeOrphans(context, orphans);
      return orphans;
    },
    async snapshot({ name, action }) {
      const metadata = await requireSandbox(context, name);
      const owner = await repoOwnerOf(context, metadata);
      if (action.kind === "list") return listSnapshots(metadata, owner);
      const inside = (command: string[]): Promise<ExecResult> => execInRunning(context, metadata, command);
      if (action.kind === "create") {
        const created = await createSnapshot(metadata, owner, inside, action.snapshot);
        await recordEvent(context.paths, name, "snapshot", { detail: `created ${action.snapshot}` });
        return [created];
      }
      await restoreSnapshot(metadata, owner, inside, action.snapshot);
      await recordEvent(context.paths, name, "snapshot", { detail: `restored ${action.snapshot}` });
      return [];
    },
    network: ({ name, change }) => networkOperation(context, name, change),
    denials: ({ name }) => denialsOperation(context, name),
    authSet: ({ agent, text }) => setLogin(context, agent, text),
    authStatus: () => loginStatuses(context),
    authRemove: ({ agent }) => forgetLogin(context, agent),
    port: ({ name, change }) => portOperation(context, name, change),
    runtimes: () => detectRuntimes(context.paths),
    templates: async () => templateSummaries(context.settings),
    async exec({ name, command, asRoot }, streams) {
      const metadata = await requireSandbox(context, name);
      const { terminal } = streams;
      const exitCode =
        terminal === undefined
          ? await relay(await execCommand(context, metadata, command, { asRoot }), streams)
          : await relayTerminal(
              (inside, size) => execCommand(context, metadata, inside, { asRoot, term: terminal.term, terminal: size }),
              command,
              terminal,
              streams,
            );
      await recordEvent(context.paths, name, "exec", {
        detail: `${command[0] ?? ""} (${command.length - 1} args)`,
        exitCode,
      });
      return exitCode;
    },
  };
}

/**
 * A sandbox's metadata plus what is true right now (running, session, address). Everything after
 * "is it running" is asked at once: each is a process or a file (tmux in the sandbox, nft, the
 * cgroup, the kernel's records), and `up` and `status` wait for the slowest, not their sum.
 */
export async function sandboxView(context: RuntimeContext, metadata: SandboxMetadata): Promise<SandboxView> {
  const running = await isRunning(context, metadata);
  const backend = backendOf(metadata.runtime);
  const [session, sshHostKey, workspaceDiskView, seccomp, kernel, limits, network, apiProxy, checkpoint] =
    await Promise.all([
      running && hasSession(context, metadata),
      pinnedHostKey(context.paths, metadata.name),
      workspaceDisk(metadata.workspace),
      (async () => seccompStatus(context, metadata, running ? await backend.refusals(context, metadata) : null))(),
      backend.kernel(context, metadata),
      limitsInForce(context, metadata, running),
      networkInForce(context, metadata, running),
      apiProxyOf(context, metadata, running),
      running ? undefined : checkpointOf(context, metadata),
    ]);
  const status = running ? (session ? "running" : "no-session") : checkpoint === undefined ? "stopped" : "checkpointed";
  return {
    name: metadata.name,
    template: metadata.template,
    address: sandboxLink(metadata.slot, context.settings.host.network.base).sandboxAddress,
    workspaceMode: metadata.workspace.mode,
    workspaceVcs: metadata.workspace.vcsName ?? null,
    runtime: metadata.runtime,
    kernel,
    workspace: metadata.workspace.hostPath,
    sourceRepo: metadata.workspace.sourceRepo ?? null,
    pool: metadata.pool !== undefined,
    status,
    slot: metadata.slot,
    containerName: metadata.containerName,
    startedAt: running ? metadata.startedAt : null,
    createdAt: metadata.createdAt,
    pid: running ? metadata.pid : null,
    user: context.settings.host.containerUsername,
    sshHostKey,
    ...limits,
    network,
    apiProxy,
    workspaceDisk: workspaceDiskView,
    seccomp,
    ports: metadata.ports ?? [],
    mcp: mcpViewOf(context, metadata),
    ...(metadata.mcpServerOf === undefined ? {} : { mcpServerOf: { ...metadata.mcpServerOf } }),
    pushGate:
      metadata.pushGate === null
        ? null
        : {
            protectedBranches: metadata.pushGate.protectedBranches,
            alwaysPushed: metadata.pushGate.alwaysPushed ?? [],
          },
  };
}

/** A running sandbox's limits as its cgroup holds them; a stopped one's from its template (its next start's). */
async function limitsInForce(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  running: boolean,
): Promise<Pick<SandboxView, "resourceLimits" | "resourceLimitsFrom">> {
  const held = running ? await backendOf(metadata.runtime).limits(context, metadata) : null;
  if (held !== null) return { resourceLimits: held, resourceLimitsFrom: "cgroup" };
  return {
    resourceLimits: context.settings.templates.find((t) => t.name === metadata.template)?.resourceLimits ?? null,
    resourceLimitsFrom: "template",
  };
}

/** A running sandbox's mode as its host-side table enforces it; a stopped one's as its next start applies it. */
async function networkInForce(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  running: boolean,
): Promise<SandboxView["network"]> {
  if (running) {
    const { namespace } = sandboxLink(metadata.slot, context.settings.host.network.base);
    const mode = await networkModeInForce({ namespace });
    return { mode: mode === "missing" ? null : mode === "unreadable" ? "unknown" : mode, from: "table" };
  }
  const template = context.settings.templates.find((t) => t.name === metadata.template);
  return { mode: metadata.network?.mode ?? template?.network.mode ?? null, from: "metadata" };
}

/** Whether the API proxy serves a running sandbox whose template has agents behind it or MCP servers (its status file says). */
async function apiProxyOf(
  context: RuntimeContext,
  metadata: SandboxMetadata,
  running: boolean,
): Promise<SandboxView["apiProxy"]> {
  const template = context.settings.templates.find((t) => t.name === metadata.template);
  // Its listener serves the agents' APIs and the MCP gate: either is a reason to have one.
  const served = template?.agents.some((agent) => agent.auth !== "wrapper") || (template?.mcp.servers.length ?? 0) > 0;
  if (template === undefined || !served) return null;
  return running ? servedByProxy(context.paths, metadata.name) : { served: false, address: null };
}

/** The primary workspace's limit and what it holds (one `btrfs qgroup show`, only when it has a limit). */
async function workspaceDisk(workspace: SandboxMetadata["workspace"]): Promise<SandboxView["workspaceDisk"]> {
  if (workspace.quota === undefined) return null;
  return { limitBytes: workspace.quota.bytes, usedBytes: await quotaUsage(workspace.quota) };
}

/**
 * Runs argv with its stdio wired to the given streams through pipes; resolves with its exit
 * status. Never the caller's own descriptors: a sandbox gets no terminal, file or socket of the
 * host's, only pipes this process reads and writes.
 */
function relay(argv: string[], streams: ExecStreams): Promise<number> {
  return new Promise((resolve, reject) => {
    const [program, ...args] = argv;
    // Its own process group: what a terminal sends forage-ctl's group (C-c) reaches the command
    // once, relayed (onSignal), not a second time directly.
    const child = spawn(program ?? "forage-enter", args, {
      stdio: [streams.stdin === null ? "ignore" : "pipe", "pipe", "pipe"],
      detached: true,
    });
    streams.onSignal?.((signal) => signalGroup(child, signal));
    if (streams.stdin !== null && child.stdin !== null) {
      child.stdin.on("error", () => undefined);
      streams.stdin.pipe(child.stdin);
    }
    child.stdout?.pipe(streams.stdout, { end: false });
    child.stderr?.pipe(streams.stderr, { end: false });
    child.once("error", reject);
    child.once("close", (code, signal) => resolve(code ?? (signal === "SIGKILL" ? 137 : 128 + 15)));
  });
}

/** Runs argv on a new pseudo-terminal whose keystrokes, output and size the caller relays. */
async function relayTerminal(
  enter: EnterOnTerminal,
  command: string[],
  terminal: RelayedTerminal,
  streams: ExecStreams,
): Promise<number> {
  const running = await startOnTerminal(enter, command, terminal.size);
  terminal.onResize((size) => running.resize(size));
  terminal.onHangUp?.(() => running.hangUp());
  streams.onSignal?.((signal) => running.signal(signal));
  // The client's input ending means it went away: hang up, as a closed terminal would.
  streams.stdin?.on("data", (chunk: Buffer) => running.type(chunk));
  streams.stdin?.once("end", () => running.hangUp());
  streams.stdin?.once("close", () => running.hangUp());
  running.output.pipe(streams.stdout, { end: false });
  return running.exit;
}

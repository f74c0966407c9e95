import { performance } from "node:perf_hooks";
import { templatePolicy } from "../../generator/policy/network/policy-rules.js";
import { stat } from "node:fs/promises";
import { sshPublicKey } from "../../generator/config/schema/names.js";
import { expandHome, lookupHostUser } from "../core/host-user.js";
import { assertSandboxName } from "../core/names.js";
import { listMetadata, readMetadata, writeMetadata } from "../state/metadata-store.js";
import { rootKeyOf, type SandboxMetadata, type SandboxRuntime } from "../state/metadata.js";
import type { Backend } from "../backends/backend.js";
import { backendNamed, defaultBackend } from "../backends/registry.js";
import { claimSlot, hostSlots, slotOwner } from "../state/slots.js";
import { recordEvent } from "../core/audit-log.js";
import { findTemplate, type RuntimeContext } from "../core/context.js";
import { removeSandbox } from "./down.js";
import { withSandboxLock } from "../state/sandbox-lock.js";
import { SandboxError } from "../core/errors.js";
import { copySecrets } from "../provision/secrets.js";
import { hostGitIdentity } from "../provision/host-vcs-identity.js";
import type { TemplateModel } from "../../generator/model/model.js";
import { ensureHostKey } from "../provision/ssh-files.js";
import { startReady, startSandbox } from "./start-stop.js";
import { startClaimed } from "./pool-start-claimed.js";
import { takeMember, type SandboxDraft } from "./pool-take-member.js";
import { createWorkspaces, type WorkspaceRequest } from "../workspaces/create-workspaces.js";
import { timed } from "../core/phase-clock.js";
import { withUpstreamAgent } from "../gates/ssh-agent/upstream-socket.js";
import type { UpOptions } from "./up-options.js";
import { makeServerSandboxes, type McpServerOrigin } from "./mcp-server-sandboxes.js";
import { copyServerSecrets } from "../provision/mcp-server-secrets.js";

/** What up takes: the caller's options as the up call's schema has them (up-options.ts), and what the call's flags resolve to. */
export type UpRequest = UpOptions & {
  name: string;
  template: string;
  /** What to mount: -w DIR, or -r REPO [--direct], and named repositories (absolute paths). */
  workspace: WorkspaceRequest;
  /** From the CLI: overrides the template's agentIdentity, which overrides the host user's git config. */
  identity: SandboxMetadata["agentIdentity"];
  /** Progress lines for a terminal (boot, session, init). */
  progress?: (step: string) => void;
  /** Set by up itself only: this is the sandbox of a stdio MCP server of another sandbox's. */
  mcpServer?: McpServerOrigin;
};

/**
 * Creates and starts a sandbox, holding its name's lock throughout (see withSandboxLock); the
 * slot is claimed host-wide (see claimSlot). Every later step is undone if any step fails, so a
 * failed `up` leaves nothing behind.
 */
export async function upSandbox(context: RuntimeContext, request: UpRequest): Promise<SandboxMetadata> {
  assertSandboxName(request.name);
  const asked = performance.now();
  return withSandboxLock(context, request.name, () => {
    context.clock?.endPhase("sandbox lock", asked);
    return createSandbox(context, request);
  });
}

async function createSandbox(context: RuntimeContext, request: UpRequest): Promise<SandboxMetadata> {
  const badKey = (request.sshKeys ?? []).find((key) => !sshPublicKey.safeParse(key).success);
  if (badKey !== undefined)
    throw new SandboxError(`--ssh-key "${badKey.slice(0, 40)}…" is not an OpenSSH public key line`, "usage");
  const template = findTemplate(context, request.template);
  const { clock } = context;
  const { runtime, owner } = await timed(clock, "checks", async () => {
    const backend = await chooseBackend(context, template, request.runtime);
    await backend.preflight(context, template);
    return { runtime: backend.name, owner: await agentOwner(context) };
  });
  const draft = await timed(clock, "reserve name", () => draftOf(context, request, runtime, template, owner));
  // A started sandbox from the template's warm pool when one is ready (runtime/sandbox/pool-*.ts), else a slot of its own.
  const claimed = await timed(clock, "claim a pool member", () => takeMember(context, draft, template));
  const reserved = claimed ?? (await timed(clock, "reserve slot", () => reserveSlot(context, draft)));
  try {
    request.progress?.("preparing the workspaces");
    const workspaces = await timed(clock, "workspaces", () =>
      createWorkspaces(context.paths, reserved.name, template, request.workspace, owner),
    );
    const withWorkspaces = { ...reserved, ...workspaces };
    const secrets = await timed(clock, "metadata, secrets, host key", async () => {
      await writeMetadata(context.paths, withWorkspaces);
      const copied = await copySecrets(context.paths, withWorkspaces, template, context.settings.host);
      if (request.mcpServer !== undefined)
        copied.push(await copyServerSecrets(context.paths, reserved, request.mcpServer.env, context.settings.host));
      if (template.ssh) await ensureHostKey(context.paths, reserved.name);
      return copied;
    });
    const running = await startReady(
      context,
      { ...withWorkspaces, secrets },
      template,
      request.progress,
      claimed === undefined ? startSandbox : startClaimed,
    );
    // Its stdio MCP servers' sandboxes, each from its own template, before it is ready: an up
    // cut short meanwhile leaves a half-made sandbox, which gc removes with them (down.ts).
    await timed(clock, "MCP servers' sandboxes", () =>
      makeServerSandboxes(running, template, owner.home, (server) => upSandbox(context, server), request.progress),
    );
    const ready = { ...running, phase: "ready" as const };
    await timed(clock, "metadata", () => writeMetadata(context.paths, ready));
    const from = claimed === undefined ? "" : `, from the pool (started as ${rootKeyOf(claimed)})`;
    await recordEvent(context.paths, reserved.name, "create", {
      detail: `template ${template.name}, slot ${reserved.slot}${from}`,
    });
    return ready;
  } catch (error) {
    await recordEvent(context.paths, reserved.name, "error", {
      detail: `up failed: ${error instanceof Error ? error.message : String(error)}`,
    }).catch(() => undefined);
    await removeSandbox(context, reserved.name).catch(() => undefined);
    throw error;
  }
}

/** A new sandbox's metadata but its slot: what the request and the template ask for, its name checked free. */
async function draftOf(
  context: RuntimeContext,
  request: UpRequest,
  runtime: SandboxRuntime,
  template: TemplateModel,
  owner: { uid: number; gid: number; home: string },
): Promise<SandboxDraft> {
  const tmuxConf = `${owner.home}/.tmux.conf`;
  // Read side by side: each is a file or a git process, and all of them are on up's critical path.
  const [tmuxConfInfo, existing, identity] = await Promise.all([
    request.muxConfig === false ? undefined : stat(tmuxConf).catch(() => undefined),
    readMetadata(context.paths, request.name),
    hostGitIdentity(owner),
  ]);
  const muxConfig = tmuxConfInfo?.isFile() === true ? tmuxConf : null;
  // The name is this up's already (it holds the sandbox's lock): no other up or down can race it.
  if (existing !== undefined) {
    throw new SandboxError(
      `sandbox "${request.name}" already exists (forage-ctl down ${request.name} first, or pick another name)`,
      "general",
    );
  }
  return {
    version: 1 as const,
    name: request.name,
    template: request.template,
    runtime,
    createdAt: new Date().toISOString(),
    phase: "creating" as const,
    creatorPid: process.pid,
    // Until the workspaces are made (after the name is reserved): nothing of ours to remove.
    workspace: {
      mode: "direct" as const,
      hostPath: request.workspace.directory ?? request.workspace.repo ?? "/",
      managed: false,
    },
    mounts: [],
    agentIdentity: withExpandedKey({ ...identity, ...template.agentIdentity, ...request.identity }, owner.home),
    uid: owner.uid,
    gid: owner.gid,
    pid: null,
    startedAt: null,
    system: null,
    cgroup: null,
    muxConfig,
    ...(request.mcpServer === undefined ? {} : { mcpServerOf: request.mcpServer.of }),
    authorizedKeys: [...new Set([...context.settings.host.authorizedKeys, ...(request.sshKeys ?? [])])],
    secrets: [],
    // In force from the first packet: the host-side table is loaded from this before the start.
    network:
      request.network === undefined ? templatePolicy(template) : { ...templatePolicy(template), mode: request.network },
    guard: null,
    sshAgent: await withUpstreamAgent(
      sshAgentOf(
        request.sshAgent === undefined ? template.sshAgent : { keys: request.sshAgent, confirm: true },
        owner.home,
      ),
      request.sshAuthSock,
      owner,
    ),
    pushGate:
      template.pushGate === null
        ? null
        : {
            protectedBranches:
              template.pushGate.protectedBranches === null ? null : [...template.pushGate.protectedBranches],
          },
  };
}

/** Claims a slot of its own for a new sandbox and records it there. */
export async function reserveSlot(context: RuntimeContext, draft: SandboxDraft): Promise<SandboxMetadata> {
  const others = await listMetadata(context.paths);
  // The slot is host-wide, as its namespace and link are: claimed in the host's registry, with
  // the metadata written before the registry's lock is let go (see claimSlot).
  const withSlot = (slot: number): SandboxMetadata => ({ ...draft, slot, containerName: `f${slot}` });
  const slot = await claimSlot(hostSlots, slotOwner(context, draft.name), others, (claimed) =>
    writeMetadata(context.paths, withSlot(claimed)),
  );
  if (slot === undefined)
    throw new SandboxError(
      "no free slot: all 254 slots on this host are in use (remove sandboxes with forage-ctl down, here or in another Forage instance)",
      "no-slot",
    );
  return withSlot(slot);
}

/**
 * The runtime a new sandbox gets: the one asked for (--runtime), else the template's (its
 * `runtime`), else the template's prebuilt NixOS system when the host has one, else the host's
 * /usr. A name no runtime has is refused.
 */
async function chooseBackend(
  context: RuntimeContext,
  template: TemplateModel,
  requested: string | undefined,
): Promise<Backend> {
  const named = requested ?? template.runtime ?? undefined;
  if (named === undefined) return defaultBackend(context.paths, template.name);
  const backend = backendNamed(named);
  if (backend === undefined)
    throw new SandboxError(`runtime "${named}" is not available on this host: see forage-ctl runtime`, "usage");
  return backend;
}

/** The SSH agent's keys as host paths ("~/" is the user's home); fingerprints as they are. */
function sshAgentOf(agent: TemplateModel["sshAgent"], home: string): SandboxMetadata["sshAgent"] {
  return agent === null ? null : { keys: agent.keys.map((key) => expandHome(key, home)), confirm: agent.confirm };
}

/** The identity with its key path as a host path ("~/" is the user's home). */
function withExpandedKey(identity: SandboxMetadata["agentIdentity"], home: string): SandboxMetadata["agentIdentity"] {
  return identity.sshKeyPath === undefined
    ? identity
    : { ...identity, sshKeyPath: expandHome(identity.sshKeyPath, home) };
}

/** The host user whose uid/gid the agent gets; never root. */
export async function agentOwner(
  context: RuntimeContext,
): Promise<{ uid: number; gid: number; home: string; name: string }> {
  const name = context.settings.host.user;
  const user = await lookupHostUser(name);
  if (user === undefined)
    throw new SandboxError(
      `user "${name}" (from ${context.settings.source}) does not exist on this host: set \`user\` to an existing account`,
      "config",
    );
  if (user.uid === 0)
    throw new SandboxError(
      `user "${name}" is root: agents never run as root; set \`user\` to an unprivileged account`,
      "config",
    );
  return { uid: user.uid, gid: user.gid, home: user.home, name: user.name };
}

import type { TemplateModel } from "../../generator/model/model.js";
import type { ResourceLimits } from "../cgroups/sandbox-cgroup.js";
import type { Bind } from "../core/bind.js";
import type { RuntimeContext } from "../core/context.js";
import type { RuntimePaths } from "../core/paths.js";
import type { ExecSpec } from "../seccomp/exec-args.js";
import type { Refusals } from "../seccomp/kernel-refusals.js";
import type { SandboxMetadata, SandboxRuntime } from "../state/metadata.js";

/** What a runtime can do: the reference's capability list, and what the rest of forage-ctl relies on. */
export interface BackendCapabilities {
  nixosConfig: boolean;
  networkIsolation: boolean;
  ephemeralRoot: boolean;
  ssh: boolean;
  generatedFiles: boolean;
  resourceLimits: boolean;
  gracefulShutdown: boolean;
  /**
   * Binds are made from checked descriptors, so an absent protected path can be held by a
   * read-only stand-in (extra-container binds by path through NixOS's own container flags).
   */
  pinnedBinds: boolean;
  /** The root runs its own init, which opens the agent's session and starts sshd itself (NixOS). */
  ownInit: boolean;
  /** `forage-ctl checkpoint` and `restore` (Backend.checkpoints). */
  checkpoint: boolean;
}

/** What environment the processes forage-ctl starts inside get. */
export interface Inside {
  /** PATH of the processes forage-ctl starts inside (the agent's, or root's with `null`). */
  path(user: string | null): string;
  /** Login shell inside. */
  shell: string;
}

/**
 * A command to run inside a running sandbox: who runs it, where, with what environment. How it
 * gets in is the runtime's (see Backend.enter).
 */
export type Entry = Omit<ExecSpec, "sandbox" | "leaderPid" | "cgroupProcs" | "auditId">;

/**
 * A runtime: how a sandbox's container is started, found, entered, stopped and removed. One
 * folder per runtime family implements it (nspawn/: nspawn and nspawn-nix; extra-container/; gvisor/),
 * what families share lives in shared/, and no family imports another (ARCHITECTURE.md, "Backends
 * as peers"); nothing else in forage-ctl tests a runtime's name. Everything common to all runtimes (workspaces, secrets,
 * the agent's session, metadata, audit events) is the caller's (runtime/sandbox/).
 */
export interface Backend {
  readonly name: SandboxRuntime;
  readonly capabilities: BackendCapabilities;
  readonly inside: Inside;
  /** One line for `forage-ctl runtime`. */
  describe(paths: RuntimePaths): Promise<string>;
  /** Why this host cannot run it (for `template`, when given), or undefined when it can. */
  unavailable(paths: RuntimePaths, template?: string): Promise<string | undefined>;
  /** Refuses, with what to do, a template this host cannot run on it (before anything is made). */
  preflight(context: RuntimeContext, template: TemplateModel): Promise<void>;
  /**
   * Starts the sandbox's container with its network fenced before anything runs inside, and
   * returns the metadata of the running sandbox (pid, cgroup, system, guard). Leaves nothing
   * behind when it fails.
   */
  start(context: RuntimeContext, metadata: SandboxMetadata, template: TemplateModel): Promise<SandboxMetadata>;
  /** Stops whatever is left of the container and removes its root and network. Idempotent. */
  stop(context: RuntimeContext, metadata: SandboxMetadata, graceSeconds: number): Promise<void>;
  /** True when the sandbox's container is running now. */
  isRunning(context: RuntimeContext, metadata: SandboxMetadata): Promise<boolean>;
  /**
   * The host argv that runs `entry` inside the running sandbox, or undefined when it is not
   * running. Each runtime enters its own way (the nspawn ones through their PID 1's namespaces,
   * shared/namespace-entry.ts), so nothing above the backends assumes a host PID to enter.
   */
  enter(context: RuntimeContext, metadata: SandboxMetadata, entry: Entry): Promise<string[] | undefined>;
  /**
   * What the sandbox's seccomp filter refused since its start (the kernel's records, a lower
   * bound), or null when it is not running or the runtime has no such records.
   */
  refusals(context: RuntimeContext, metadata: SandboxMetadata): Promise<Refusals | null>;
  /** The sandbox's network namespace (a path to open), or undefined when it is not running. */
  networkNamespace(context: RuntimeContext, metadata: SandboxMetadata): Promise<string | undefined>;
  /**
   * What answers the sandbox's system calls, and which network stack it uses, for status: the
   * host's kernel (shared), or gVisor's with its platform (a running sandbox's, as it was started).
   */
  kernel(context: RuntimeContext, metadata: SandboxMetadata): Promise<string>;
  /**
   * The limits a running sandbox is held to now (null: it has no group of its own): its cgroup's
   * for the runtimes whose processes are the host's; under gVisor, tasks as gVisor's kernel counts them.
   */
  limits(context: RuntimeContext, metadata: SandboxMetadata): Promise<ResourceLimits | null>;
  /** Removes what the runtime keeps beyond a stop (a container definition), at down. */
  destroy(context: RuntimeContext, metadata: SandboxMetadata): Promise<void>;
  /** Saving a running sandbox whole, memory included, and running it again from there; absent where the runtime cannot. */
  readonly checkpoints?: Checkpoints;
  /**
   * Gives a running warm pool's member (made with metadata `pool`, runtime/sandbox/pool-*.ts) what a claim
   * brings, as the sandbox `metadata` names: its hostname, its root's name-bound files, and
   * `binds`, into the running container. Absent where the runtime cannot (its binds are fixed at
   * its start, or its own init opens the session at boot): its templates keep no pool.
   */
  adopt?(context: RuntimeContext, metadata: SandboxMetadata, template: TemplateModel, binds: Bind[]): Promise<void>;
}

/** A sandbox saved by `forage-ctl checkpoint`: when, and how large its image is. */
export interface SavedCheckpoint {
  savedAt: string;
  bytes: number;
}

/**
 * Checkpoint and restore. A saved sandbox runs nothing; its root, network (link, tables, DNS
 * filter) and cgroup stay as they were, so its processes come back to the same files and
 * addresses. A stop or start removes the checkpoint with the rest.
 */
export interface Checkpoints {
  /**
   * Saves the running sandbox and ends its processes, or refuses (nothing changed) when it cannot
   * be saved now; `waitSeconds`: how long to wait for what stands in the way to go.
   */
  save(
    context: RuntimeContext,
    metadata: SandboxMetadata,
    options: { waitSeconds: number; progress?: (line: string) => void },
  ): Promise<SavedCheckpoint>;
  /** The sandbox's checkpoint, or undefined when it has none. */
  saved(context: RuntimeContext, metadata: SandboxMetadata): Promise<SavedCheckpoint | undefined>;
  /** Runs the saved sandbox again where it was (its checkpoint is then gone); returns its metadata, running. */
  restore(context: RuntimeContext, metadata: SandboxMetadata): Promise<SandboxMetadata>;
}

import type { TemplateModel } from "../../generator/model/model.js";
import type { RuntimeContext } from "../core/context.js";
import type { RuntimePaths } from "../core/paths.js";
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
}

/** What environment the processes forage-ctl starts inside get. */
export interface Inside {
  /** PATH of the processes forage-ctl starts inside (the agent's, or root's with `null`). */
  path(user: string | null): string;
  /** Login shell inside. */
  shell: string;
}

/**
 * A runtime: how a sandbox's container is started, found, stopped and removed. One file per
 * runtime implements it (host-root nspawn, Nix-root nspawn, extra-container); nothing else in
 * forage-ctl tests a runtime's name. Everything common to all runtimes (workspaces, secrets,
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
  /** The running container's PID 1 (whose namespaces commands enter), or undefined. */
  leader(context: RuntimeContext, metadata: SandboxMetadata): Promise<number | undefined>;
  /** The sandbox's network namespace (a path to open), or undefined when it is not running. */
  networkNamespace(context: RuntimeContext, metadata: SandboxMetadata): Promise<string | undefined>;
  /** Removes what the runtime keeps beyond a stop (a container definition), at down. */
  destroy(context: RuntimeContext, metadata: SandboxMetadata): Promise<void>;
}

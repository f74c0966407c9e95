import type { PhaseTiming } from "../core/phase-clock.js";
import type { DenialRecord } from "../network/denials.js";
import type { NetworkChange, NetworkView } from "../sandbox/network-operations.js";
import type { AuditEvent } from "../core/audit-log.js";
import type { SeccompStatus } from "../seccomp/status.js";
import type { Orphan } from "../sandbox/gc.js";
import type { WindowLog } from "../sandbox/session-logs.js";
import type { TerminalSize } from "../sandbox/terminal.js";
import type { Snapshot } from "../workspaces/snapshots.js";

/** One sandbox as ps and status show it. */
export interface SandboxView {
  name: string;
  template: string;
  address: string;
  workspaceMode: string;
  /** The jj workspace or git branch the sandbox works on, or null for a directory as is. */
  workspaceVcs: string | null;
  /** nspawn (host /usr) or nspawn-nix (the template's NixOS system). */
  runtime: string;
  workspace: string;
  status: "running" | "no-session" | "stopped";
  slot: number;
  containerName: string;
  startedAt: string | null;
  createdAt: string;
  pid: number | null;
  /** The agent user inside, who SSH logs in as. */
  user: string;
  /** The sandbox's pinned SSH host key ("ssh-ed25519 AAAA…"), or null without SSH. */
  sshHostKey: string | null;
  /** The template's resource limits (null: lifted with "infinity"), or null when the template is gone. */
  resourceLimits: { cpuQuota: string | null; memoryMax: string | null; tasksMax: number | null } | null;
  /** The primary workspace's disk limit (workspace.maxSize) and its use now (null: not known), or null without one. */
  workspaceDisk: { limitBytes: number; usedBytes: number | null } | null;
  /** The seccomp filter: what it allows back, a warning when that is anything, what it refused. */
  seccomp: SeccompStatus;
}

export interface UpArgs {
  name: string;
  template: string;
  /** -w DIR: a directory bound as is. */
  workspace?: string;
  /** -r PATH: the default repository (a jj workspace or git worktree of it; as is with direct). */
  repo?: string;
  direct?: boolean;
  /** -r NAME=PATH: repositories the template's mounts name. */
  repos?: Record<string, string>;
  gitUser?: string;
  gitEmail?: string;
  /** Host path of the agent's SSH private key (must belong to the configured user). */
  sshKeyPath?: string;
  sshKeys?: string[];
  muxConfig?: boolean;
  runtime?: string;
  /** Time the phases of this `up` and return them (--timings). */
  timings?: boolean;
}

/** What `up` answers: the new sandbox, and with `timings`, where the time went. */
export interface UpResult extends SandboxView {
  timings?: { phases: PhaseTiming[]; totalMs: number };
}

/** Streams of a command run in a sandbox: the caller's terminal, or a daemon connection. */
export interface ExecStreams {
  stdin: NodeJS.ReadableStream | null;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** The streams are this process's own terminal: hand it to the command as is (TTY kept). */
  inheritTerminal?: boolean;
  /**
   * The caller relays a terminal from elsewhere (a daemon client): the command runs on a new
   * pseudo-terminal of this size and type, resized on request; stdout carries all its output.
   */
  terminal?: RelayedTerminal;
}

export interface RelayedTerminal {
  size: TerminalSize;
  /** The client's TERM (validated before use). */
  term: string;
  onResize(listener: (size: TerminalSize) => void): void;
  /** Called when the client goes away: the terminal is hung up. */
  onHangUp?(listener: () => void): void;
}

/**
 * Everything forage-ctl asks of the privileged side. Implemented in-process (the CLI run as
 * root, and the daemon) and over the daemon's socket (the CLI run as the configured user), so
 * commands behave the same either way.
 */
export interface Operations {
  /** Where the work happens: in this process (root), or in the daemon (terminals are relayed). */
  readonly via: "in-process" | "daemon";
  up(args: UpArgs, progress?: (step: string) => void): Promise<UpResult>;
  down(name: string, graceSeconds: number): Promise<void>;
  list(): Promise<SandboxView[]>;
  status(name: string): Promise<SandboxView>;
  start(name: string): Promise<void>;
  stop(name: string, graceSeconds: number): Promise<void>;
  reset(name: string): Promise<void>;
  auditLog(name: string): Promise<AuditEvent[]>;
  logs(name: string, lines: number): Promise<WindowLog[]>;
  gc(force: boolean): Promise<Orphan[]>;
  exec(name: string, command: string[], streams: ExecStreams, asRoot: boolean): Promise<number>;
  /** Snapshots of the sandbox's working copy: create (returns it), list, restore. */
  snapshot(name: string, action: SnapshotAction): Promise<Snapshot[]>;
  /** The sandbox's network policy and guard; with a change, applied first (live when running). */
  network(name: string, change: NetworkChange | null): Promise<NetworkView>;
  /** What the sandbox's network refused, oldest first. */
  denials(name: string): Promise<DenialRecord[]>;
}

export type SnapshotAction = { kind: "create"; snapshot: string } | { kind: "list" } | { kind: "restore"; snapshot: string };

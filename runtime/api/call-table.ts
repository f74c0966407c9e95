import { dropUndefined } from "../../generator/lib/drop-undefined.js";
import { decisionOf } from "../gates/approvals/approval-decision.js";
import type { ApprovalView } from "../gates/approvals/approval-view.js";
import type { AuditEvent } from "../core/audit-log.js";
import type { DenialRecord } from "../gates/network/denials.js";
import type { ProxyStatus } from "../gates/api-proxy/proxy-status.js";
import type { LoginStatus } from "../logins/login-status.js";
import type { Orphan } from "../sandbox/gc.js";
import type { NetworkView } from "../sandbox/network-operations.js";
import type { PortView } from "../sandbox/port-operations.js";
import type { WindowLog } from "../sandbox/session-logs.js";
import type { Snapshot } from "../workspaces/snapshots.js";
import type { RuntimeInfo } from "../backends/registry.js";
import type { SavedCheckpoint } from "../backends/backend.js";
import type { TemplateSummary } from "./template-summary.js";
import type { SandboxView, UpResult } from "./sandbox-view.js";

/**
 * What a call carries besides its request and its result: nothing, progress lines (up), or a
 * command's streams and terminal (exec).
 */
export type StreamKind = "none" | "progress" | "exec";

/** Checks a daemon's answer to a call and returns it typed; throws what is wrong with it. */
export type AnswerCheck<T> = (answer: unknown) => T;

/**
 * One call as its client knows it: how it streams, and how its answer is checked. Its request
 * schema is the server's (calls.ts): a client needs none of it, so a command sent to the daemon
 * loads no schema library (forage-ctl exec starts in tens of milliseconds).
 */
interface CallShape {
  readonly result: AnswerCheck<unknown>;
  readonly streams: StreamKind;
}

/*
 * Answers come from the daemon, which is root and the same version as its client: the client
 * checks their outline (what a mismatched daemon would get wrong first), not every field.
 */
const list =
  <T>(): AnswerCheck<T[]> =>
  (answer) => {
    if (!Array.isArray(answer)) throw new Error("expected a list");
    return answer as T[];
  };
const record =
  <T>(): AnswerCheck<T> =>
  (answer) => {
    if (typeof answer !== "object" || answer === null || Array.isArray(answer)) throw new Error("expected an object");
    return answer as T;
  };
/** An operation without a result: the daemon answers null (JSON has no undefined). */
const done: AnswerCheck<void> = (answer) => {
  if (answer !== null) throw new Error("expected null");
};
const exitStatus: AnswerCheck<number> = (answer) => {
  if (typeof answer !== "number" || !Number.isInteger(answer)) throw new Error("expected an exit status");
  return answer;
};

/** Who answers on the daemon's socket: the settings file it serves (absolute), its pid and its version. */
export interface DaemonHello {
  settings: string;
  pid: number;
  /** forage-ctl's version the daemon runs (absent from daemons before it was added). */
  version?: string;
  /** The path overrides the daemon runs with (pathOverridesOf; absent from older daemons). */
  paths?: Record<string, string | null>;
}
const hello: AnswerCheck<DaemonHello> = (answer) => {
  const { settings, pid, version, paths } = record<Record<string, unknown>>()(answer);
  if (typeof settings !== "string" || typeof pid !== "number" || !Number.isInteger(pid))
    throw new Error("expected the settings it serves and its pid");
  const overrides =
    typeof paths === "object" &&
    paths !== null &&
    Object.values(paths).every((value) => value === null || typeof value === "string")
      ? (paths as Record<string, string | null>)
      : undefined;
  return dropUndefined({ settings, pid, version: typeof version === "string" ? version : undefined, paths: overrides });
};

/** Everything forage-ctl asks of the privileged side: in this process (root) or of the daemon. */
const operationShapes = {
  /** Creates and starts a sandbox; progress lines stream while it does. */
  up: { result: record<UpResult>(), streams: "progress" },
  down: { result: done, streams: "none" },
  list: { result: list<SandboxView>(), streams: "none" },
  status: { result: record<SandboxView>(), streams: "none" },
  start: { result: done, streams: "none" },
  stop: { result: done, streams: "none" },
  reset: { result: done, streams: "none" },
  /** Saves a running sandbox whole (gvisor); answers the checkpoint; progress lines while it waits. */
  checkpoint: { result: record<SavedCheckpoint>(), streams: "progress" },
  /** Runs a checkpointed sandbox again where it was. */
  restore: { result: done, streams: "none" },
  auditLog: { result: list<AuditEvent>(), streams: "none" },
  logs: { result: list<WindowLog>(), streams: "none" },
  gc: { result: list<Orphan>(), streams: "none" },
  /** Runs a command in a sandbox with the caller's streams (or relayed terminal); answers its exit status. */
  exec: { result: exitStatus, streams: "exec" },
  /** Snapshots of the sandbox's working copy: create (answers it), list, restore (answers none). */
  snapshot: { result: list<Snapshot>(), streams: "none" },
  /** The sandbox's network policy and guard; with a change, applied first (live when running). */
  network: { result: record<NetworkView>(), streams: "none" },
  /** What the sandbox's network refused, oldest first. */
  denials: { result: list<DenialRecord>(), streams: "none" },
  /** Stores an agent's subscription login (read from the user's stdin) on the host; answers its status. */
  authSet: { result: record<LoginStatus>(), streams: "none" },
  /** The logins the templates want and the host holds, never their values. */
  authStatus: { result: list<LoginStatus>(), streams: "none" },
  authRemove: { result: done, streams: "none" },
  /** The sandbox's port forwards (host loopback → sandbox); with a change, made first. */
  port: { result: list<PortView>(), streams: "none" },
  /** The runtimes and whether this host can use them, as the side that creates sandboxes sees them. */
  runtimes: { result: list<RuntimeInfo>(), streams: "none" },
  /** The templates of the settings in force, by name and description (the picker's wizard offers them). */
  templates: { result: list<TemplateSummary>(), streams: "none" },
} as const satisfies Record<string, CallShape>;

/** What only the daemon answers, about itself. */
const daemonShapes = {
  /** The API proxy's health and counters, or null when none runs. */
  proxyStatus: {
    result: (answer: unknown): ProxyStatus | null => (answer === null ? null : record<ProxyStatus>()(answer)),
    streams: "none",
  },
  /** The approvals queue's pending requests, oldest first (forage-ctl approvals; --watch polls it). */
  approvals: { result: list<ApprovalView>(), streams: "none" },
  /** Answers a pending request yes (once, always, or for a while); answers the request answered. Root's and the user's sockets only. */
  approve: { result: record<ApprovalView>(), streams: "none" },
  /** Answers a pending request no; answers the request answered. */
  deny: { result: record<ApprovalView>(), streams: "none" },
  /**
   * Queues a request and answers when the human does or its deadline passes (long-held). Root's
   * own socket only: the askers are root's host processes (approval-client.ts).
   */
  approvalAsk: { result: decisionOf, streams: "none" },
  /** Who is answering (an older daemon does not know hello: see daemonHello in the client). */
  hello: { result: hello, streams: "none" },
  /** Asks the daemon to exit; its sandboxes keep running. */
  shutdown: {
    result: (answer: unknown): "stopping" => {
      if (answer !== "stopping") throw new Error('expected "stopping"');
      return answer;
    },
    streams: "none",
  },
} as const satisfies Record<string, CallShape>;

export const callShapes = { ...operationShapes, ...daemonShapes };
type Shapes = typeof callShapes;

/** The name of a call, as it goes over the wire. */
export type Op = keyof Shapes;
/** A call every Operations implementation answers (the rest only the daemon answers). */
export type OperationName = keyof typeof operationShapes;
type Results = { [K in Op]: ReturnType<Shapes[K]["result"]> };
/** What call K answers. */
export type Result<K extends Op> = Results[K];
/** How call K streams (see StreamKind). */
export type StreamsOf<K extends Op> = Shapes[K]["streams"];
/** The operations that take their request and nothing else. */
export type PlainOperation = { [K in OperationName]: StreamsOf<K> extends "none" ? K : never }[OperationName];

/** Whether a client's `op` names a call (own keys only, never `toString` and the like). */
export function isOp(op: string): op is Op {
  return Object.hasOwn(callShapes, op);
}

function isOperationName(op: string): op is OperationName {
  return Object.hasOwn(operationShapes, op);
}

/** The operations that take their request and nothing else, by name. */
export const plainOperations: readonly PlainOperation[] = Object.keys(operationShapes)
  .filter(isOperationName)
  .filter((op): op is PlainOperation => callShapes[op].streams === "none");

import { z } from "zod";
import type { AuditEvent } from "../core/audit-log.js";
import { SandboxError } from "../core/errors.js";
import type { DenialRecord } from "../network/denials.js";
import type { NetworkView } from "../network/network-operations.js";
import type { ProxyStatus } from "../proxy/proxy-status.js";
import type { Orphan } from "../sandbox/gc.js";
import type { WindowLog } from "../sandbox/session-logs.js";
import type { Snapshot } from "../workspaces/snapshots.js";
import { execRequest, gcRequest, logsRequest, networkRequest, noRequest, sandboxRequest, snapshotRequest, stopRequest, upRequest } from "./requests.js";
import type { SandboxView, UpResult } from "./sandbox-view.js";

/**
 * What a call carries besides its request and its result: nothing, progress lines (up), or a
 * command's streams and terminal (exec).
 */
export type StreamKind = "none" | "progress" | "exec";

/**
 * One call of the table: the schema its request is built to and parsed with, the schema its
 * client checks the answer with, and how it streams.
 */
export interface Call<Req, Res, S extends StreamKind> {
  readonly request: z.ZodType<Req>;
  readonly result: z.ZodType<Res>;
  readonly streams: S;
}

/*
 * Answers come from the daemon, which is root and the same version as its client: the client
 * checks their outline (what a mismatched daemon would get wrong first), not every field.
 */
const list = <T>() => z.custom<T[]>(Array.isArray);
const record = <T>() => z.custom<T>((value) => typeof value === "object" && value !== null && !Array.isArray(value));
/** An operation without a result: the daemon answers null (JSON has no undefined). */
const done = z.null().transform((): void => undefined);

/** Who answers on the daemon's socket: the settings file it serves (absolute), and its pid. */
const daemonHello = z.object({ settings: z.string(), pid: z.number().int() });
export type DaemonHello = z.infer<typeof daemonHello>;

/** Everything forage-ctl asks of the privileged side: in this process (root) or of the daemon. */
const operationTable = {
  /** Creates and starts a sandbox; progress lines stream while it does. */
  up: { request: upRequest, result: record<UpResult>(), streams: "progress" },
  down: { request: stopRequest, result: done, streams: "none" },
  list: { request: noRequest, result: list<SandboxView>(), streams: "none" },
  status: { request: sandboxRequest, result: record<SandboxView>(), streams: "none" },
  start: { request: sandboxRequest, result: done, streams: "none" },
  stop: { request: stopRequest, result: done, streams: "none" },
  reset: { request: sandboxRequest, result: done, streams: "none" },
  auditLog: { request: sandboxRequest, result: list<AuditEvent>(), streams: "none" },
  logs: { request: logsRequest, result: list<WindowLog>(), streams: "none" },
  gc: { request: gcRequest, result: list<Orphan>(), streams: "none" },
  /** Runs a command in a sandbox with the caller's streams (or relayed terminal); answers its exit status. */
  exec: { request: execRequest, result: z.number().int(), streams: "exec" },
  /** Snapshots of the sandbox's working copy: create (answers it), list, restore (answers none). */
  snapshot: { request: snapshotRequest, result: list<Snapshot>(), streams: "none" },
  /** The sandbox's network policy and guard; with a change, applied first (live when running). */
  network: { request: networkRequest, result: record<NetworkView>(), streams: "none" },
  /** What the sandbox's network refused, oldest first. */
  denials: { request: sandboxRequest, result: list<DenialRecord>(), streams: "none" },
} as const;

/** What only the daemon answers, about itself. */
const daemonTable = {
  /** The API proxy's health and counters, or null when none runs. */
  proxyStatus: { request: noRequest, result: z.custom<ProxyStatus | null>((value) => value === null || typeof value === "object"), streams: "none" },
  /** Who is answering (an older daemon does not know hello: see daemonHello in the client). */
  hello: { request: noRequest, result: daemonHello, streams: "none" },
  /** Asks the daemon to exit; its sandboxes keep running. */
  shutdown: { request: noRequest, result: z.literal("stopping"), streams: "none" },
} as const;

const table = { ...operationTable, ...daemonTable };
type Table = typeof table;

/** The name of a call, as it goes over the wire. */
export type Op = keyof Table;
/** A call every Operations implementation answers (the rest only the daemon answers). */
export type OperationName = keyof typeof operationTable;
/** The request of call K, one shape end to end: built by the CLI, sent, parsed, handled. */
export type Request<K extends Op> = z.output<Table[K]["request"]>;
/** What call K answers. */
export type Result<K extends Op> = z.output<Table[K]["result"]>;
/** How call K streams (see StreamKind). */
export type StreamsOf<K extends Op> = Table[K]["streams"];
/** The operations that take their request and nothing else. */
export type PlainOperation = { [K in OperationName]: StreamsOf<K> extends "none" ? K : never }[OperationName];

/** The call table, typed per call so that code generic over a call name stays typed. */
export const calls: { readonly [K in Op]: Call<Request<K>, Result<K>, StreamsOf<K>> } = table;

/** Whether a client's `op` names a call of the table (its own keys only, never `toString` and the like). */
export function isOp(op: string): op is Op {
  return Object.hasOwn(calls, op);
}

function isOperationName(op: string): op is OperationName {
  return Object.hasOwn(operationTable, op);
}

/** The operations that take their request and nothing else, by name. */
export const plainOperations: readonly PlainOperation[] = Object.keys(operationTable)
  .filter(isOperationName)
  .filter((op): op is PlainOperation => calls[op].streams === "none");

/** One function per call name, each taking that call's request: how plain calls are served and sent. */
export type RequestMethods<K extends Op> = { [P in K]: (request: Request<P>) => Promise<Result<P>> };

/**
 * Builds RequestMethods from a maker generic over the call name: the one place where an object
 * built by name is asserted to have the table's types (each entry is made for its own name).
 */
export function methodsFor<K extends Op>(ops: readonly K[], make: <P extends K>(op: P) => (request: Request<P>) => Promise<Result<P>>): RequestMethods<K> {
  return Object.fromEntries(ops.map((op) => [op, make(op)])) as RequestMethods<K>;
}

/**
 * Parses what a client sent as call `op`'s request, or refuses it as a usage error that names
 * the first field at fault: `invalid down request: grace Too big: expected number to be <=3600`.
 */
export function parseRequest<K extends Op>(op: K, raw: unknown): Request<K> {
  const parsed = calls[op].request.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new SandboxError(`invalid ${op} request: ${issue?.path.join(".") ?? ""} ${issue?.message ?? ""}`, "usage");
}

import type { z } from "zod";
import type { Op } from "./call-table.js";
import { approvalAskRequest, approveRequest, denyRequest } from "../gates/approvals/approval-schema.js";
import {
  authRemoveRequest,
  authSetRequest,
  execRequest,
  gcRequest,
  logsRequest,
  networkRequest,
  noRequest,
  portRequest,
  sandboxRequest,
  snapshotRequest,
  startRequest,
  stopRequest,
  checkpointRequest,
  upRequest,
} from "./request-schemas.js";

/**
 * The request schema of every call: the daemon parses what a client sends with it (everything a
 * client sends is untrusted), and the request type of each call is the schema's output.
 */
export const requestSchemas = {
  up: upRequest,
  down: stopRequest,
  list: noRequest,
  status: sandboxRequest,
  start: startRequest,
  stop: stopRequest,
  reset: startRequest,
  checkpoint: checkpointRequest,
  restore: sandboxRequest,
  auditLog: sandboxRequest,
  logs: logsRequest,
  gc: gcRequest,
  exec: execRequest,
  snapshot: snapshotRequest,
  network: networkRequest,
  denials: sandboxRequest,
  authSet: authSetRequest,
  authStatus: noRequest,
  authRemove: authRemoveRequest,
  port: portRequest,
  runtimes: noRequest,
  templates: noRequest,
  proxyStatus: noRequest,
  approvals: noRequest,
  approve: approveRequest,
  deny: denyRequest,
  approvalAsk: approvalAskRequest,
  hello: noRequest,
  shutdown: noRequest,
} as const satisfies Record<Op, z.ZodType>;

type Requests = { [K in Op]: z.output<(typeof requestSchemas)[K]> };
/** The request of call K, one shape end to end: built by the CLI, sent, parsed, handled. */
export type Request<K extends Op> = Requests[K];

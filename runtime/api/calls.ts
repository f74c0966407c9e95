import { SandboxError } from "../core/errors.js";
import type { Op } from "./call-table.js";
import { requestSchemas, type Request } from "./call-requests.js";
import { issueList } from "../../generator/lib/issue-list.js";

/*
 * The call table, in three parts so a client loads only what it needs: call-table.ts (names,
 * streams, answer checks: no schema library), call-requests.ts (which request each call takes,
 * for the daemon and the request types; the requests' schemas are in request-schemas.ts) and
 * call-methods.ts (methods derived from the table).
 */
export {
  callShapes,
  isOp,
  plainOperations,
  type DaemonHello,
  type Op,
  type OperationName,
  type PlainOperation,
  type Result,
  type StreamKind,
  type StreamsOf,
} from "./call-table.js";
export { methodsFor, type RequestMethods } from "./call-methods.js";
export type { Request } from "./call-requests.js";

/**
 * Parses what a client sent as call `op`'s request, or refuses it as a usage error that names
 * every field at fault: `invalid down request: grace: Too big: expected number to be <=3600`.
 */
export function parseRequest<K extends Op>(op: K, raw: unknown): Request<K> {
  const parsed = requestSchemas[op].safeParse(raw ?? {});
  if (parsed.success) return parsed.data as Request<K>;
  throw new SandboxError(`invalid ${op} request: ${issueList(parsed.error.issues)}`, "usage");
}

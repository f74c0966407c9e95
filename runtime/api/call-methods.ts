import type { Op, Result } from "./call-table.js";
import type { Request } from "./call-requests.js";

/** One function per call name, each taking that call's request: how plain calls are served and sent. */
export type RequestMethods<K extends Op> = { [P in K]: (request: Request<P>) => Promise<Result<P>> };

/**
 * Builds RequestMethods from a maker generic over the call name: the one place where an object
 * built by name is asserted to have the table's types (each entry is made for its own name).
 */
export function methodsFor<K extends Op>(
  ops: readonly K[],
  make: <P extends K>(op: P) => (request: Request<P>) => Promise<Result<P>>,
): RequestMethods<K> {
  return Object.fromEntries(ops.map((op) => [op, make(op)])) as RequestMethods<K>;
}

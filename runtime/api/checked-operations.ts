import {
  methodsFor,
  parseRequest,
  plainOperations,
  type PlainOperation,
  type Request,
  type RequestMethods,
  type Result,
} from "./calls.js";
import type { Operations } from "./operations.js";

/**
 * `operations` with every request checked by its call's schema first, as the daemon checks what
 * its clients send: root's in-process commands refuse what the daemon refuses, with the same
 * message and exit code (`up -t Claude`: a name no template can have is a usage error, 64, either
 * way; a git user with a newline is refused either way).
 */
export function checkedOperations(operations: Operations): Operations {
  const methods: RequestMethods<PlainOperation> = operations;
  const plain =
    <P extends PlainOperation>(op: P) =>
    async (request: Request<P>): Promise<Result<P>> =>
      methods[op](parseRequest(op, request));
  return {
    via: operations.via,
    ...methodsFor(plainOperations, plain),
    // Async: a refusal is a rejected promise, as the operation's own would be (callers chain .finally).
    up: async (request, progress) => operations.up(parseRequest("up", request), progress),
    checkpoint: async (request, progress) => operations.checkpoint(parseRequest("checkpoint", request), progress),
    exec: async (request, streams) => operations.exec(parseRequest("exec", request), streams),
  };
}

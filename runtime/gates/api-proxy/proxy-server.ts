import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

/** How long a sandbox may take to send a request's headers, and the whole request with its body. */
export interface ListenerTimeouts {
  headersMs: number;
  requestMs: number;
}

/** Enough for any agent on its own link; short enough that half-sent requests do not pile up. */
export const listenerTimeouts: ListenerTimeouts = { headersMs: 30_000, requestMs: 120_000 };

/**
 * An HTTP server for one sandbox's proxy listener. Node checks its timeouts only every
 * `connectionsCheckingInterval` (30 s by default), so a 30 s header timeout let partial headers
 * live up to 60 s; the check runs here at a tenth of the header timeout (at most each second),
 * so the stated timeouts hold to within that.
 */
export function proxyServer(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  timeouts: ListenerTimeouts = listenerTimeouts,
): Server {
  return createServer(
    {
      noDelay: true,
      headersTimeout: timeouts.headersMs,
      // Time to send a whole request, body included (answers may stream for much longer).
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(timeouts.headersMs / 10))),
    },
    handler,
  );
}

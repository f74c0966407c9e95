import type { OperationName, PlainOperation, Request, RequestMethods, Result, StreamsOf } from "./calls.js";
import type { ExecStreams } from "./exec-streams.js";

/** What the calls that stream take after their request, by their StreamKind. */
interface StreamArgs {
  /** Called with each step of an `up` (a terminal shows them). */
  progress: [progress?: (step: string) => void];
  /** The caller's streams, or a daemon connection's. */
  exec: [streams: ExecStreams];
}

type StreamingOperation = Exclude<OperationName, PlainOperation>;

type StreamingMethods = {
  [K in StreamingOperation]: (
    request: Request<K>,
    ...streams: StreamArgs[StreamsOf<K> & keyof StreamArgs]
  ) => Promise<Result<K>>;
};

/**
 * Everything forage-ctl asks of the privileged side, one method per operation of the call table
 * (calls.ts), each taking that operation's request object. Implemented in-process (the CLI run
 * as root, and the daemon) and over the daemon's socket (the CLI run as the configured user), so
 * commands behave the same either way.
 *
 * @example await operations.down({ name: "fix-42", grace: 10 })
 */
export type Operations = {
  /** Where the work happens: in this process (root), or in the daemon (terminals are relayed). */
  readonly via: "in-process" | "daemon";
} & RequestMethods<PlainOperation> &
  StreamingMethods;

import { UserError } from "../core/errors.js";

/*
 * `forage-ctl port`'s forwards and their limits, without a schema library: the CLI parses a
 * spec with this before anything is sent (the daemon checks the request again with its schema,
 * port-forward-schema.ts, built from the same limits).
 */

/** One forward: the host's loopback port to the sandbox's port. */
export interface PortForward {
  /** Listened on at 127.0.0.1 (forwardHost) on the host, never another address. */
  hostPort: number;
  /** Connected to at the sandbox's own address (<base>.N.2). */
  port: number;
}

/** The one host address forwards listen on: loopback only, so no other machine reaches a sandbox. */
export const forwardHost = "127.0.0.1";

export const portLimits = {
  /**
   * Host ports below this are privileged: a forward listens as root, and the daemon's user must
   * not take a port that local programs trust to be root's.
   */
  lowestHostPort: 1024,
  highestPort: 65535,
  /** Forwards per sandbox: each is a listening socket in the guard host. */
  maxPerSandbox: 32,
} as const;

/** What a spec names: the forward, and whether the host port was given (else it is the sandbox's port). */
export interface ParsedPortSpec {
  forward: PortForward;
  hostGiven: boolean;
}

const specPattern = /^(?:(\d{1,5}):)?(\d{1,5})$/;

/**
 * Parses `[HOSTPORT:]PORT` (HOSTPORT defaults to PORT). For `add`, the host port must be
 * unprivileged; for `remove` any port is named as given (a missing one is said by the sandbox).
 *
 * @example parsePortSpec("8080:3000", "add") // { forward: { hostPort: 8080, port: 3000 }, hostGiven: true }
 */
export function parsePortSpec(text: string, purpose: "add" | "remove"): ParsedPortSpec {
  const match = specPattern.exec(text);
  if (match === null) throw new UserError(`port "${printable(text)}": ${shapeProblem(text)}`, "usage");
  const port = Number(match[2]);
  const hostPort = match[1] === undefined ? port : Number(match[1]);
  const inRange = (value: number): boolean => value >= 1 && value <= portLimits.highestPort;
  if (!inRange(port))
    throw new UserError(`port "${text}": the sandbox port must be 1-${portLimits.highestPort}`, "usage");
  if (!inRange(hostPort))
    throw new UserError(`port "${text}": the host port must be 1-${portLimits.highestPort}`, "usage");
  if (purpose === "add" && hostPort < portLimits.lowestHostPort) {
    const example = `${hostPort + 8000 <= portLimits.highestPort ? hostPort + 8000 : 8080}:${port}`;
    throw new UserError(
      `port "${text}": host port ${hostPort} is privileged (below ${portLimits.lowestHostPort}); choose one from ${portLimits.lowestHostPort}-${portLimits.highestPort}, e.g. ${example}`,
      "usage",
    );
  }
  return { forward: { hostPort, port }, hostGiven: match[1] !== undefined };
}

/** "8080 → 3000" as lists show a forward (the host side first, as it is typed). */
export function describeForward(forward: PortForward): string {
  return `${forwardHost}:${forward.hostPort} → ${forward.port}`;
}

function shapeProblem(text: string): string {
  // The one address a forward can have is fixed: say so instead of "not a number".
  if (/^[^:]+:\d+:\d+$/.test(text) || text.includes("["))
    return `the host address is always ${forwardHost} (loopback only); give HOSTPORT:PORT or PORT`;
  return "expected PORT or HOSTPORT:PORT (decimal numbers, e.g. 3000 or 8080:3000)";
}

/** The spec as an error may quote it: short, and without control characters. */
function printable(text: string): string {
  const clean = text.replace(/[\x00-\x1f\x7f]/g, "?");
  return clean.length > 40 ? `${clean.slice(0, 40)}…` : clean;
}
